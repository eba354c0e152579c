/* SPDX-License-Identifier: BSD-3-Clause */
/* Copyright 2026, the librpma authors */

/*
 * doc.c -- libyaml's event parser driven into a tree of nodes. The bounds
 * (depth, nodes, entries, scalar length, anchors) are checked as events
 * arrive, so that no input makes the tree large; an alias is replaced by a
 * copy of its anchor's node only when the copy fits the node budget.
 */

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <yaml.h>

#include "doc.h"
#include "text.h"

struct doc_anchor {
	char *name;
	struct rpmaf__cfg_node *node;
};

struct doc_builder {
	struct rpmaf__cfg_diag *d;
	const char *buf; /* the text, to look at what a parser error points to */
	size_t len;
	int ovr;
	yaml_parser_t parser;
	struct rpmaf__cfg_node *root;
	/* open collections; stack[0] is the root once it is a collection */
	struct rpmaf__cfg_node *stack[RPMAF_CFG_MAX_DEPTH];
	char *stack_anchor[RPMAF_CFG_MAX_DEPTH]; /* registered when the collection ends */
	unsigned depth;
	struct doc_anchor anchors[RPMAF_CFG_MAX_ANCHORS];
	unsigned nanchors;
	uint32_t nodes; /* nodes created so far, copies included */
	bool done;	/* the root node is complete */
};

/* see doc.h */
struct rpmaf__cfg_node *
rpmaf__cfg_node_new(enum rpmaf__cfg_kind kind, struct rpmaf__cfg_pos pos, const char *value,
		    size_t len)
{
	struct rpmaf__cfg_node *node = calloc(1, sizeof(*node));

	if (node == NULL)
		return NULL;
	node->kind = kind;
	node->pos = pos;
	node->size = 1;
	node->height = kind == RPMAF__CFG_SCALAR ? 0 : 1;
	if (kind != RPMAF__CFG_SCALAR)
		return node;
	node->value = malloc(len + 1);
	if (node->value == NULL) {
		free(node);
		return NULL;
	}
	if (len)
		memcpy(node->value, value, len);
	node->value[len] = '\0';
	node->len = len;
	return node;
}

/* see doc.h */
void
rpmaf__cfg_node_delete(struct rpmaf__cfg_node *node)
{
	if (node == NULL)
		return;
	for (size_t i = 0; i < node->n; i++)
		rpmaf__cfg_node_delete(node->items[i]);
	free(node->items);
	free(node->value);
	free(node);
}

/* see doc.h */
int
rpmaf__cfg_node_append(struct rpmaf__cfg_node *node, struct rpmaf__cfg_node *item)
{
	if (node->n == node->cap) {
		size_t cap = node->cap ? node->cap * 2 : 8;
		struct rpmaf__cfg_node **items = realloc(node->items, cap * sizeof(*items));

		if (items == NULL)
			return RPMAF_E_NOMEM;
		node->items = items;
		node->cap = cap;
	}
	node->items[node->n++] = item;
	return 0;
}

/* see doc.h */
bool
rpmaf__cfg_node_is_null(const struct rpmaf__cfg_node *node)
{
	static const char *const nulls[] = {"", "~", "null", "Null", "NULL"};

	if (node->kind != RPMAF__CFG_SCALAR || !node->plain)
		return false;
	for (size_t i = 0; i < sizeof(nulls) / sizeof(nulls[0]); i++)
		if (strlen(nulls[i]) == node->len && memcmp(nulls[i], node->value, node->len) == 0)
			return true;
	return false;
}

/* see doc.h */
size_t
rpmaf__cfg_map_find(const struct rpmaf__cfg_node *map, const char *key, size_t len)
{
	for (size_t i = 0; i + 1 < map->n; i += 2) {
		const struct rpmaf__cfg_node *k = map->items[i];

		if (k->len == len && memcmp(k->value, key, len) == 0)
			return i + 1;
	}
	return 0;
}

/* node_copy -- a deep copy of node, every copied node placed at pos */
static struct rpmaf__cfg_node *
node_copy(const struct rpmaf__cfg_node *node, struct rpmaf__cfg_pos pos)
{
	struct rpmaf__cfg_node *copy = rpmaf__cfg_node_new(node->kind, pos, node->value, node->len);

	if (copy == NULL)
		return NULL;
	copy->plain = node->plain;
	copy->size = node->size;
	copy->height = node->height;
	for (size_t i = 0; i < node->n; i++) {
		struct rpmaf__cfg_node *item = node_copy(node->items[i], pos);

		if (item == NULL || rpmaf__cfg_node_append(copy, item)) {
			rpmaf__cfg_node_delete(item);
			rpmaf__cfg_node_delete(copy);
			return NULL;
		}
	}
	return copy;
}

/* doc_pos -- the position of a libyaml mark in this text */
static struct rpmaf__cfg_pos
doc_pos(const struct doc_builder *b, yaml_mark_t mark)
{
	struct rpmaf__cfg_pos pos = {0, 0, b->ovr};

	if (b->ovr < 0) {
		pos.line = (unsigned)mark.line + 1;
		pos.column = (unsigned)mark.column + 1;
	}
	return pos;
}

/* doc_path -- the key path of the place the next event goes to, into buf */
static const char *
doc_path(const struct doc_builder *b, char *buf, size_t size)
{
	char shown[80];
	size_t o = 0;

	buf[0] = '\0';
	if (b->ovr >= 0) /* inside an override's value: its key path says more than this */
		return buf;
	for (unsigned i = 0; i < b->depth && o < size; i++) {
		const struct rpmaf__cfg_node *c = b->stack[i];
		size_t at = i + 1 < b->depth ? c->n - 1 : c->n; /* the child in progress */
		int n = 0;

		if (c->kind == RPMAF__CFG_SEQ)
			n = snprintf(buf + o, size - o, "[%zu]", at);
		else if (at % 2 == 1) /* in the value of key items[at - 1] */
			n = snprintf(buf + o, size - o, "%s%s", o ? "." : "",
				     rpmaf__cfg_diag_key(shown, sizeof(shown),
							 c->items[at - 1]->value,
							 c->items[at - 1]->len));
		o += n > 0 ? (size_t)n : 0;
	}
	if (o >= size)
		buf[size - 1] = '\0';
	return buf;
}

/* doc_fail -- an error at mark for the place the next event goes to */
static int
doc_fail(struct doc_builder *b, yaml_mark_t mark, const char *what, const char *expected)
{
	char path[RPMAF__CFG_PATH_MAX];

	return rpmaf__cfg_diag_fail(b->d, RPMAF_E_PARSE, doc_pos(b, mark),
				    doc_path(b, path, sizeof(path)), "%s (%s)", what, expected);
}

/* doc_parser_fail -- translate libyaml's error into a message */
static int
doc_parser_fail(struct doc_builder *b)
{
	yaml_parser_t *p = &b->parser;
	yaml_mark_t mark = p->problem_mark;
	char what[256];
	size_t off;

	if (p->error == YAML_MEMORY_ERROR)
		return rpmaf__cfg_diag_nomem(b->d);
	if (p->error == YAML_READER_ERROR) /* rpmaf__cfg_text_check() lets none through */
		return doc_fail(b, mark, "unreadable text", "UTF-8 text");
	off = rpmaf__cfg_text_offset(b->buf, b->len, (unsigned)mark.line + 1,
				     (unsigned)mark.column + 1);
	if (off < b->len && b->buf[off] == '\t')
		return doc_fail(b, mark, "tab character", "separate with spaces");
	snprintf(what, sizeof(what), "YAML syntax error: %s%s%s", p->problem ? p->problem : "",
		 p->context ? " " : "", p->context ? p->context : "");
	return doc_fail(b, mark, what, "well-formed YAML");
}

/* doc_count -- account for n more nodes within the budget */
static int
doc_count(struct doc_builder *b, yaml_mark_t mark, uint32_t n)
{
	char what[64];

	if (n > RPMAF_CFG_MAX_NODES - b->nodes) {
		snprintf(what, sizeof(what), "more than %u nodes", RPMAF_CFG_MAX_NODES);
		return doc_fail(b, mark, what, "a smaller document; aliases count every copy");
	}
	b->nodes += n;
	return 0;
}

/* doc_key_check -- a new key of a mapping: a scalar, not seen before in it */
static int
doc_key_check(struct doc_builder *b, const struct rpmaf__cfg_node *map,
	      const struct rpmaf__cfg_node *key, yaml_mark_t mark)
{
	char what[RPMAF__CFG_PATH_MAX + 32];
	char quoted[80];
	size_t at;

	if (key->kind != RPMAF__CFG_SCALAR)
		return doc_fail(
		    b, mark, key->kind == RPMAF__CFG_MAP ? "a mapping as a key" : "a list as a key",
		    "a key is a scalar");
	at = rpmaf__cfg_map_find(map, key->value, key->len);
	if (at == 0)
		return 0;
	snprintf(what, sizeof(what), "duplicate key %s",
		 rpmaf__cfg_quote(quoted, sizeof(quoted), key->value, key->len));
	if (b->ovr >= 0)
		return doc_fail(b, mark, what, "each key once");
	snprintf(quoted, sizeof(quoted), "first at line %u, column %u",
		 map->items[at - 1]->pos.line, map->items[at - 1]->pos.column);
	return doc_fail(b, mark, what, quoted);
}

/* doc_add -- attach a complete or just opened node to the open collection or as the root */
static int
doc_add(struct doc_builder *b, struct rpmaf__cfg_node *node, yaml_mark_t mark)
{
	struct rpmaf__cfg_node *parent;
	int ret;

	if (b->depth == 0) {
		b->root = node;
		return 0;
	}
	parent = b->stack[b->depth - 1];
	if (parent->n >= 2 * RPMAF_CFG_MAX_ITEMS ||
	    (parent->kind == RPMAF__CFG_SEQ && parent->n >= RPMAF_CFG_MAX_ITEMS)) {
		char what[64];

		snprintf(what, sizeof(what), "more than %u entries", RPMAF_CFG_MAX_ITEMS);
		ret = doc_fail(b, mark, what, "a shorter list or mapping");
		goto err_free;
	}
	if (parent->kind == RPMAF__CFG_MAP && parent->n % 2 == 0 &&
	    (ret = doc_key_check(b, parent, node, mark)))
		goto err_free;
	if (rpmaf__cfg_node_append(parent, node)) {
		ret = rpmaf__cfg_diag_nomem(b->d);
		goto err_free;
	}
	return 0;

err_free:
	rpmaf__cfg_node_delete(node);
	return ret;
}

/* doc_anchor_set -- remember that name (taken over) now stands for node */
static int
doc_anchor_set(struct doc_builder *b, char *name, struct rpmaf__cfg_node *node, yaml_mark_t mark)
{
	char what[64];

	for (unsigned i = 0; i < b->nanchors; i++) {
		if (strcmp(b->anchors[i].name, name) == 0) {
			free(name);
			b->anchors[i].node = node;
			return 0;
		}
	}
	if (b->nanchors == RPMAF_CFG_MAX_ANCHORS) {
		free(name);
		snprintf(what, sizeof(what), "more than %u anchors", RPMAF_CFG_MAX_ANCHORS);
		return doc_fail(b, mark, what, "fewer anchors");
	}
	b->anchors[b->nanchors].name = name;
	b->anchors[b->nanchors].node = node;
	b->nanchors++;
	return 0;
}

/* doc_anchor_dup -- a copy of an event's anchor name, or NULL in *copy for none */
static int
doc_anchor_dup(struct doc_builder *b, const yaml_char_t *anchor, char **copy)
{
	size_t len;

	*copy = NULL;
	if (anchor == NULL)
		return 0;
	len = strlen((const char *)anchor);
	*copy = malloc(len + 1);
	if (*copy == NULL)
		return rpmaf__cfg_diag_nomem(b->d);
	memcpy(*copy, anchor, len + 1);
	return 0;
}

/* doc_no_tag -- tags are not part of the format */
static int
doc_no_tag(struct doc_builder *b, const yaml_char_t *tag, yaml_mark_t mark)
{
	char what[RPMAF__CFG_PATH_MAX];
	char quoted[128];

	if (tag == NULL)
		return 0;
	snprintf(
	    what, sizeof(what), "tag %s",
	    rpmaf__cfg_quote(quoted, sizeof(quoted), (const char *)tag, strlen((const char *)tag)));
	return doc_fail(b, mark, what, "no tags: each key has a fixed type");
}

/* doc_scalar -- a scalar event */
static int
doc_scalar(struct doc_builder *b, const yaml_event_t *ev)
{
	struct rpmaf__cfg_node *node;
	char *anchor;
	char what[64];
	int ret;

	if ((ret = doc_no_tag(b, ev->data.scalar.tag, ev->start_mark)))
		return ret;
	if (ev->data.scalar.length > RPMAF_CFG_MAX_SCALAR) {
		char expected[32];

		snprintf(what, sizeof(what), "scalar of %zu bytes", ev->data.scalar.length);
		snprintf(expected, sizeof(expected), "at most %u bytes", RPMAF_CFG_MAX_SCALAR);
		return doc_fail(b, ev->start_mark, what, expected);
	}
	if ((ret = doc_count(b, ev->start_mark, 1)))
		return ret;
	node = rpmaf__cfg_node_new(RPMAF__CFG_SCALAR, doc_pos(b, ev->start_mark),
				   (const char *)ev->data.scalar.value, ev->data.scalar.length);
	if (node == NULL)
		return rpmaf__cfg_diag_nomem(b->d);
	node->plain = ev->data.scalar.style == YAML_PLAIN_SCALAR_STYLE;
	/*
	 * The anchor first, so that a message about it names the place of this
	 * scalar; should doc_add() then fail, the load ends before any alias
	 * could use the anchor.
	 */
	if ((ret = doc_anchor_dup(b, ev->data.scalar.anchor, &anchor)) ||
	    (anchor && (ret = doc_anchor_set(b, anchor, node, ev->start_mark)))) {
		rpmaf__cfg_node_delete(node);
		return ret;
	}
	return doc_add(b, node, ev->start_mark);
}

/* doc_open -- a sequence or mapping start event */
static int
doc_open(struct doc_builder *b, const yaml_event_t *ev, enum rpmaf__cfg_kind kind)
{
	const yaml_char_t *anchor =
	    kind == RPMAF__CFG_SEQ ? ev->data.sequence_start.anchor : ev->data.mapping_start.anchor;
	const yaml_char_t *tag =
	    kind == RPMAF__CFG_SEQ ? ev->data.sequence_start.tag : ev->data.mapping_start.tag;
	struct rpmaf__cfg_node *node;
	char what[64];
	int ret;

	if ((ret = doc_no_tag(b, tag, ev->start_mark)))
		return ret;
	if (b->depth == RPMAF_CFG_MAX_DEPTH) {
		snprintf(what, sizeof(what), "nesting deeper than %u levels", RPMAF_CFG_MAX_DEPTH);
		return doc_fail(b, ev->start_mark, what, "a flatter document");
	}
	if ((ret = doc_count(b, ev->start_mark, 1)))
		return ret;
	node = rpmaf__cfg_node_new(kind, doc_pos(b, ev->start_mark), NULL, 0);
	if (node == NULL)
		return rpmaf__cfg_diag_nomem(b->d);
	if ((ret = doc_add(b, node, ev->start_mark)))
		return ret;
	b->stack[b->depth] = node;
	if ((ret = doc_anchor_dup(b, anchor, &b->stack_anchor[b->depth])))
		return ret;
	b->depth++;
	return 0;
}

/* doc_close -- a sequence or mapping end event: sizes known, anchor usable */
static int
doc_close(struct doc_builder *b, const yaml_event_t *ev)
{
	struct rpmaf__cfg_node *node = b->stack[--b->depth];
	char *anchor = b->stack_anchor[b->depth];

	b->stack_anchor[b->depth] = NULL;
	for (size_t i = 0; i < node->n; i++) {
		node->size += node->items[i]->size;
		if (node->items[i]->height + 1 > node->height)
			node->height = node->items[i]->height + 1;
	}
	return anchor ? doc_anchor_set(b, anchor, node, ev->start_mark) : 0;
}

/* doc_anchor_name -- an anchor's name (libyaml allows only [0-9A-Za-z_-]), cut when long */
static void
doc_anchor_name(char *buf, size_t size, const char *name)
{
	size_t len = strlen(name);

	if (len < size)
		memcpy(buf, name, len + 1);
	else
		snprintf(buf, size, "%.*s...", (int)(size - 4), name);
}

/* doc_alias -- an alias event: a copy of its anchor's node, within the bounds */
static int
doc_alias(struct doc_builder *b, const yaml_event_t *ev)
{
	const char *name = (const char *)ev->data.alias.anchor;
	const struct rpmaf__cfg_node *target = NULL;
	struct rpmaf__cfg_node *copy;
	char what[RPMAF__CFG_PATH_MAX];
	char expected[RPMAF__CFG_PATH_MAX];
	char quoted[80];
	int ret;

	for (unsigned i = 0; i < b->nanchors; i++)
		if (strcmp(b->anchors[i].name, name) == 0)
			target = b->anchors[i].node;
	doc_anchor_name(quoted, sizeof(quoted), name);
	if (target == NULL) {
		snprintf(what, sizeof(what), "unknown alias *%s", quoted);
		snprintf(expected, sizeof(expected), "an anchor &%s earlier, on a complete node",
			 quoted);
		return doc_fail(b, ev->start_mark, what, expected);
	}
	if (b->depth + target->height > RPMAF_CFG_MAX_DEPTH) {
		snprintf(what, sizeof(what), "alias *%s nests deeper than %u levels", quoted,
			 RPMAF_CFG_MAX_DEPTH);
		return doc_fail(b, ev->start_mark, what, "a flatter document");
	}
	if ((ret = doc_count(b, ev->start_mark, target->size)))
		return ret;
	copy = node_copy(target, doc_pos(b, ev->start_mark));
	if (copy == NULL)
		return rpmaf__cfg_diag_nomem(b->d);
	return doc_add(b, copy, ev->start_mark);
}

/* doc_node_event -- an event inside the document */
static int
doc_node_event(struct doc_builder *b, const yaml_event_t *ev)
{
	int ret;

	switch (ev->type) {
	case YAML_SCALAR_EVENT:
		ret = doc_scalar(b, ev);
		break;
	case YAML_SEQUENCE_START_EVENT:
		return doc_open(b, ev, RPMAF__CFG_SEQ);
	case YAML_MAPPING_START_EVENT:
		return doc_open(b, ev, RPMAF__CFG_MAP);
	case YAML_SEQUENCE_END_EVENT:
	case YAML_MAPPING_END_EVENT:
		ret = doc_close(b, ev);
		break;
	case YAML_ALIAS_EVENT:
		ret = doc_alias(b, ev);
		break;
	default: /* doc_is_node_event() lets no other event through */
		return 0;
	}
	if (ret == 0 && b->depth == 0)
		b->done = true;
	return ret;
}

/* doc_stream_event -- an event outside the root node */
static int
doc_stream_event(struct doc_builder *b, const yaml_event_t *ev, bool *end)
{
	switch (ev->type) {
	case YAML_STREAM_START_EVENT:
	case YAML_DOCUMENT_END_EVENT:
		return 0;
	case YAML_DOCUMENT_START_EVENT:
		if (b->done)
			return doc_fail(b, ev->start_mark, "a second document",
					b->ovr >= 0 ? "one value" : "one document per file");
		return 0;
	case YAML_STREAM_END_EVENT:
		*end = true;
		if (b->done || b->ovr >= 0)
			return 0;
		return doc_fail(b, ev->start_mark, "no document",
				"a mapping of sections: workers, queues, listen, ...");
	default: /* the node events go to doc_node_event() */
		return 0;
	}
}

/* doc_is_node_event -- whether an event belongs to the root node */
static bool
doc_is_node_event(yaml_event_type_t type)
{
	return type == YAML_SCALAR_EVENT || type == YAML_ALIAS_EVENT ||
	       type == YAML_SEQUENCE_START_EVENT || type == YAML_SEQUENCE_END_EVENT ||
	       type == YAML_MAPPING_START_EVENT || type == YAML_MAPPING_END_EVENT;
}

/* doc_run -- feed libyaml's events to the builder until the stream ends */
static int
doc_run(struct doc_builder *b)
{
	bool end = false;
	int ret = 0;

	while (!end && ret == 0) {
		yaml_event_t ev;

		if (!yaml_parser_parse(&b->parser, &ev))
			return doc_parser_fail(b);
		if (doc_is_node_event(ev.type))
			ret = doc_node_event(b, &ev);
		else
			ret = doc_stream_event(b, &ev, &end);
		yaml_event_delete(&ev);
	}
	return ret;
}

/* doc_empty_value -- the empty plain scalar an empty override value stands for */
static int
doc_empty_value(struct doc_builder *b, struct rpmaf__cfg_pos pos)
{
	b->root = rpmaf__cfg_node_new(RPMAF__CFG_SCALAR, pos, "", 0);
	if (b->root == NULL)
		return rpmaf__cfg_diag_nomem(b->d);
	b->root->plain = true;
	return 0;
}

/* doc_cleanup -- free what the builder holds besides the tree */
static void
doc_cleanup(struct doc_builder *b)
{
	for (unsigned i = 0; i < b->nanchors; i++)
		free(b->anchors[i].name);
	for (unsigned i = 0; i < RPMAF_CFG_MAX_DEPTH; i++)
		free(b->stack_anchor[i]);
	yaml_parser_delete(&b->parser);
}

/* see doc.h */
int
rpmaf__cfg_doc_parse(struct rpmaf__cfg_diag *d, const char *buf, size_t len, int ovr,
		     struct rpmaf__cfg_node **root)
{
	struct doc_builder *b = calloc(1, sizeof(*b));
	struct rpmaf__cfg_pos none = {0, 0, ovr};
	int ret;

	if (b == NULL)
		return rpmaf__cfg_diag_nomem(d);
	b->d = d;
	b->buf = buf;
	b->len = len;
	b->ovr = ovr;
	if (!yaml_parser_initialize(&b->parser)) {
		free(b);
		return rpmaf__cfg_diag_nomem(d);
	}
	yaml_parser_set_encoding(&b->parser, YAML_UTF8_ENCODING);
	yaml_parser_set_input_string(&b->parser, (const unsigned char *)buf, len);
	ret = doc_run(b);
	if (ret == 0 && b->root == NULL) /* an override with an empty value: null */
		ret = doc_empty_value(b, none);
	doc_cleanup(b);
	if (ret)
		rpmaf__cfg_node_delete(b->root);
	else
		*root = b->root;
	free(b);
	return ret;
}
