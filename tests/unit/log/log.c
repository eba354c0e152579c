/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * log.c -- unit tests of librpma/src/log.c: thresholds, the replaceable log
 * function, rpma_errormsg(), the default function and the environment
 */

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <syslog.h>
#include <unistd.h>

#include "librpma.h"
#include "log.h"
#include "mocks.h"

#define REC_MAX	 16
#define TEXT_MAX 1100

/* one message received by rec_log_function() */
struct rec {
	enum rpma_log_level level;
	char file[64];
	int line;
	char func[64];
	char msg[TEXT_MAX];
};

static struct rec Recs[REC_MAX];
static int Nrecs;

/* rec_log_function -- a log function recording what it receives */
static void
rec_log_function(enum rpma_log_level level, const char *file_name, const int line_no,
		 const char *function_name, const char *message_format, ...)
{
	va_list ap;

	if (Nrecs >= REC_MAX)
		return;
	struct rec *r = &Recs[Nrecs++];

	r->level = level;
	snprintf(r->file, sizeof(r->file), "%s", file_name);
	r->line = line_no;
	snprintf(r->func, sizeof(r->func), "%s", function_name);
	va_start(ap, message_format);
	vsnprintf(r->msg, sizeof(r->msg), message_format, ap);
	va_end(ap);
}

/* syslog records: log.c calls syslog(); this definition replaces libc's */
static int Nsyslog;
static int Syslog_pri;
static char Syslog_msg[TEXT_MAX];

void
syslog(int pri, const char *fmt, ...)
{
	va_list ap;

	Nsyslog++;
	Syslog_pri = pri;
	va_start(ap, fmt);
	vsnprintf(Syslog_msg, sizeof(Syslog_msg), fmt, ap);
	va_end(ap);
}

static enum rpma_log_level Initial_threshold[RPMA_LOG_THRESHOLD_MAX];

static char Tmpdir[64];

/* reset_log -- both thresholds disabled, the default function, no env */
static void
reset_log(void)
{
	assert_int_equal(rpma_log_set_threshold(RPMA_LOG_THRESHOLD, RPMA_LOG_DISABLED), 0);
	assert_int_equal(rpma_log_set_threshold(RPMA_LOG_THRESHOLD_AUX, RPMA_LOG_DISABLED), 0);
	assert_int_equal(rpma_log_set_function(RPMA_LOG_USE_DEFAULT_FUNCTION), 0);
	unsetenv("RPMA_LOG_FILE");
	unsetenv("RPMA_LOG_LEVEL");
	rpma__log_fini();
	Nrecs = 0;
	memset(Recs, 0, sizeof(Recs));
	Nsyslog = 0;
	Syslog_msg[0] = '\0';
}

/* setup -- a clean mock and log state and a fresh temporary directory */
static int
setup(void **state)
{
	(void)state;
	mock_reset();
	reset_log();
	snprintf(Tmpdir, sizeof(Tmpdir), "/tmp/rpma_log_test.XXXXXX");
	assert_non_null(mkdtemp(Tmpdir));
	return 0;
}

/* teardown -- restore the log state, remove the directory, check leaks */
static int
teardown(void **state)
{
	char cmd[128];

	(void)state;
	reset_log();
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", Tmpdir);
	assert_int_equal(system(cmd), 0);
	assert_int_equal(mock_alloc_live(), 0);
	return 0;
}

/* read_file -- the whole content of path ("" if it does not exist) */
static void
read_file(const char *path, char *buf, size_t size)
{
	FILE *f = fopen(path, "r");

	buf[0] = '\0';
	if (f == NULL)
		return;
	size_t n = fread(buf, 1, size - 1, f);

	buf[n] = '\0';
	fclose(f);
}

/* stderr capture: fd 2 redirected to a file of Tmpdir */
static int Saved_stderr = -1;
static char Stderr_path[128];

static void
capture_stderr_begin(void)
{
	snprintf(Stderr_path, sizeof(Stderr_path), "%s/stderr", Tmpdir);
	int fd = open(Stderr_path, O_WRONLY | O_CREAT | O_TRUNC, 0600);

	assert_true(fd >= 0);
	fflush(stderr);
	Saved_stderr = dup(2);
	assert_true(Saved_stderr >= 0);
	assert_int_equal(dup2(fd, 2), 2);
	close(fd);
}

static void
capture_stderr_end(char *buf, size_t size)
{
	fflush(stderr);
	assert_int_equal(dup2(Saved_stderr, 2), 2);
	close(Saved_stderr);
	Saved_stderr = -1;
	read_file(Stderr_path, buf, size);
}

/* thresholds_default -- both thresholds start disabled */
static void
thresholds_default(void **state)
{
	(void)state;
	assert_int_equal(Initial_threshold[RPMA_LOG_THRESHOLD], RPMA_LOG_DISABLED);
	assert_int_equal(Initial_threshold[RPMA_LOG_THRESHOLD_AUX], RPMA_LOG_DISABLED);
}

/* threshold_set_get -- every level can be set and read back, per threshold */
static void
threshold_set_get(void **state)
{
	enum rpma_log_level level;

	(void)state;
	for (int t = RPMA_LOG_THRESHOLD; t < RPMA_LOG_THRESHOLD_MAX; t++) {
		for (int l = RPMA_LOG_DISABLED; l <= RPMA_LOG_LEVEL_DEBUG; l++) {
			assert_int_equal(rpma_log_set_threshold(t, l), 0);
			level = 1234;
			assert_int_equal(rpma_log_get_threshold(t, &level), 0);
			assert_int_equal(level, l);
		}
	}
	/* the two thresholds are independent */
	assert_int_equal(rpma_log_set_threshold(RPMA_LOG_THRESHOLD, RPMA_LOG_LEVEL_WARNING), 0);
	assert_int_equal(rpma_log_set_threshold(RPMA_LOG_THRESHOLD_AUX, RPMA_LOG_LEVEL_INFO), 0);
	assert_int_equal(rpma_log_get_threshold(RPMA_LOG_THRESHOLD, &level), 0);
	assert_int_equal(level, RPMA_LOG_LEVEL_WARNING);
	assert_int_equal(rpma_log_get_threshold(RPMA_LOG_THRESHOLD_AUX, &level), 0);
	assert_int_equal(level, RPMA_LOG_LEVEL_INFO);
}

/* threshold_set_invalid -- bad threshold or level: RPMA_E_INVAL, no change */
static void
threshold_set_invalid(void **state)
{
	enum rpma_log_level level;

	(void)state;
	assert_int_equal(rpma_log_set_threshold(RPMA_LOG_THRESHOLD, RPMA_LOG_LEVEL_NOTICE), 0);

	assert_int_equal(
	    rpma_log_set_threshold((enum rpma_log_threshold) - 1, RPMA_LOG_LEVEL_ERROR),
	    RPMA_E_INVAL);
	assert_non_null(strstr(rpma_errormsg(), "invalid log threshold"));
	assert_int_equal(rpma_log_set_threshold(RPMA_LOG_THRESHOLD_MAX, RPMA_LOG_LEVEL_ERROR),
			 RPMA_E_INVAL);
	assert_int_equal(rpma_log_set_threshold((enum rpma_log_threshold)77, RPMA_LOG_LEVEL_ERROR),
			 RPMA_E_INVAL);
	assert_int_equal(rpma_log_set_threshold(RPMA_LOG_THRESHOLD, (enum rpma_log_level) - 2),
			 RPMA_E_INVAL);
	assert_non_null(strstr(rpma_errormsg(), "invalid log level: -2"));
	assert_int_equal(rpma_log_set_threshold(RPMA_LOG_THRESHOLD,
						(enum rpma_log_level)(RPMA_LOG_LEVEL_DEBUG + 1)),
			 RPMA_E_INVAL);
	assert_int_equal(rpma_log_set_threshold(RPMA_LOG_THRESHOLD_AUX, (enum rpma_log_level)100),
			 RPMA_E_INVAL);

	assert_int_equal(rpma_log_get_threshold(RPMA_LOG_THRESHOLD, &level), 0);
	assert_int_equal(level, RPMA_LOG_LEVEL_NOTICE);
	assert_int_equal(rpma_log_get_threshold(RPMA_LOG_THRESHOLD_AUX, &level), 0);
	assert_int_equal(level, RPMA_LOG_DISABLED);
}

/* threshold_get_invalid -- bad threshold or NULL level: RPMA_E_INVAL, no write */
static void
threshold_get_invalid(void **state)
{
	enum rpma_log_level level = (enum rpma_log_level)4321;

	(void)state;
	assert_int_equal(rpma_log_get_threshold((enum rpma_log_threshold) - 1, &level),
			 RPMA_E_INVAL);
	assert_int_equal(rpma_log_get_threshold(RPMA_LOG_THRESHOLD_MAX, &level), RPMA_E_INVAL);
	assert_int_equal(level, 4321);
	assert_int_equal(rpma_log_get_threshold(RPMA_LOG_THRESHOLD, NULL), RPMA_E_INVAL);
	assert_string_equal(rpma_errormsg(), "level is NULL");
}

/* function_receives -- the user function gets level, base name, line, func, text */
static void
function_receives(void **state)
{
	(void)state;
	assert_int_equal(rpma_log_set_function(rec_log_function), 0);
	assert_int_equal(rpma_log_set_threshold(RPMA_LOG_THRESHOLD, RPMA_LOG_LEVEL_WARNING), 0);

	rpma__log(RPMA_LOG_LEVEL_ERROR, "some/dir/file.c", 42, "a_func", "value %d %s", 7, "x");
	rpma__log(RPMA_LOG_LEVEL_WARNING, "plain.c", 43, "b_func", "warn");

	assert_int_equal(Nrecs, 2);
	assert_int_equal(Recs[0].level, RPMA_LOG_LEVEL_ERROR);
	assert_string_equal(Recs[0].file, "file.c");
	assert_int_equal(Recs[0].line, 42);
	assert_string_equal(Recs[0].func, "a_func");
	assert_string_equal(Recs[0].msg, "value 7 x");
	assert_int_equal(Recs[1].level, RPMA_LOG_LEVEL_WARNING);
	assert_string_equal(Recs[1].file, "plain.c");
	assert_string_equal(Recs[1].msg, "warn");
	assert_int_equal(Nsyslog, 0);
}

/* function_threshold -- messages above both thresholds are not delivered */
static void
function_threshold(void **state)
{
	(void)state;
	assert_int_equal(rpma_log_set_function(rec_log_function), 0);

	/* both disabled: nothing at all, not even fatal */
	rpma__log(RPMA_LOG_LEVEL_FATAL, "f.c", 1, "f", "fatal");
	assert_int_equal(Nrecs, 0);

	assert_int_equal(rpma_log_set_threshold(RPMA_LOG_THRESHOLD, RPMA_LOG_LEVEL_ERROR), 0);
	rpma__log(RPMA_LOG_LEVEL_WARNING, "f.c", 2, "f", "warning");
	rpma__log(RPMA_LOG_LEVEL_DEBUG, "f.c", 3, "f", "debug");
	assert_int_equal(Nrecs, 0);
	rpma__log(RPMA_LOG_LEVEL_FATAL, "f.c", 4, "f", "fatal");
	assert_int_equal(Nrecs, 1);
	assert_string_equal(Recs[0].msg, "fatal");

	/* a message within the auxiliary threshold only is delivered too */
	assert_int_equal(rpma_log_set_threshold(RPMA_LOG_THRESHOLD_AUX, RPMA_LOG_LEVEL_INFO), 0);
	rpma__log(RPMA_LOG_LEVEL_INFO, "f.c", 5, "f", "info");
	rpma__log(RPMA_LOG_LEVEL_DEBUG, "f.c", 6, "f", "debug");
	assert_int_equal(Nrecs, 2);
	assert_int_equal(Recs[1].level, RPMA_LOG_LEVEL_INFO);
	assert_string_equal(Recs[1].msg, "info");
}

/* function_library_message -- a failing library call reaches the user function */
static void
function_library_message(void **state)
{
	(void)state;
	assert_int_equal(rpma_log_set_function(rec_log_function), 0);
	assert_int_equal(rpma_log_set_threshold(RPMA_LOG_THRESHOLD, RPMA_LOG_LEVEL_ERROR), 0);

	assert_int_equal(rpma_log_set_threshold((enum rpma_log_threshold)99, RPMA_LOG_LEVEL_ERROR),
			 RPMA_E_INVAL);
	assert_int_equal(Nrecs, 1);
	assert_int_equal(Recs[0].level, RPMA_LOG_LEVEL_ERROR);
	assert_string_equal(Recs[0].file, "log.c");
	assert_string_equal(Recs[0].func, "rpma_log_set_threshold");
	assert_true(Recs[0].line > 0);
	assert_string_equal(Recs[0].msg, "invalid log threshold: 99");
}

/* function_restore_default -- RPMA_LOG_USE_DEFAULT_FUNCTION brings back the default */
static void
function_restore_default(void **state)
{
	char path[128], buf[TEXT_MAX];

	(void)state;
	snprintf(path, sizeof(path), "%s/log", Tmpdir);
	assert_int_equal(setenv("RPMA_LOG_FILE", path, 1), 0);
	rpma__log_init();

	assert_int_equal(rpma_log_set_threshold(RPMA_LOG_THRESHOLD, RPMA_LOG_LEVEL_ERROR), 0);
	assert_int_equal(rpma_log_set_function(rec_log_function), 0);
	rpma__log(RPMA_LOG_LEVEL_ERROR, "a.c", 1, "f", "to the user");
	assert_int_equal(Nrecs, 1);

	assert_int_equal(rpma_log_set_function(RPMA_LOG_USE_DEFAULT_FUNCTION), 0);
	rpma__log(RPMA_LOG_LEVEL_ERROR, "a.c", 2, "f", "to the file");
	assert_int_equal(Nrecs, 1);

	rpma__log_fini();
	read_file(path, buf, sizeof(buf));
	assert_string_equal(buf, "*ERROR* a.c:2 f: to the file\n");
}

/* errormsg_last_error -- errors and fatals set rpma_errormsg(), others do not */
static void
errormsg_last_error(void **state)
{
	char big[700];

	(void)state;
	assert_non_null(rpma_errormsg());

	/* logging disabled: the text is kept anyway */
	rpma__log(RPMA_LOG_LEVEL_ERROR, "f.c", 1, "f", "first %d", 1);
	assert_string_equal(rpma_errormsg(), "first 1");
	rpma__log(RPMA_LOG_LEVEL_FATAL, "f.c", 1, "f", "second");
	assert_string_equal(rpma_errormsg(), "second");
	rpma__log(RPMA_LOG_LEVEL_WARNING, "f.c", 1, "f", "warning");
	rpma__log(RPMA_LOG_LEVEL_NOTICE, "f.c", 1, "f", "notice");
	rpma__log(RPMA_LOG_LEVEL_DEBUG, "f.c", 1, "f", "debug");
	assert_string_equal(rpma_errormsg(), "second");

	/* a long text is truncated, still NUL-terminated */
	memset(big, 'z', sizeof(big) - 1);
	big[sizeof(big) - 1] = '\0';
	rpma__log(RPMA_LOG_LEVEL_ERROR, "f.c", 1, "f", "%s", big);
	assert_int_equal(strlen(rpma_errormsg()), 511);
	assert_int_equal(strspn(rpma_errormsg(), "z"), 511);
}

/* log_keeps_errno -- logging never changes errno */
static void
log_keeps_errno(void **state)
{
	char path[128];

	(void)state;
	snprintf(path, sizeof(path), "%s/log", Tmpdir);
	assert_int_equal(setenv("RPMA_LOG_FILE", path, 1), 0);
	rpma__log_init();
	assert_int_equal(rpma_log_set_threshold(RPMA_LOG_THRESHOLD, RPMA_LOG_LEVEL_DEBUG), 0);
	assert_int_equal(rpma_log_set_threshold(RPMA_LOG_THRESHOLD_AUX, RPMA_LOG_LEVEL_DEBUG), 0);

	errno = EHOSTUNREACH;
	rpma__log(RPMA_LOG_LEVEL_ERROR, "f.c", 1, "f", "x");
	assert_int_equal(errno, EHOSTUNREACH);
	errno = ETIMEDOUT;
	rpma__log(RPMA_LOG_LEVEL_DEBUG, "f.c", 1, "f", "y");
	assert_int_equal(errno, ETIMEDOUT);
	assert_int_equal(Nsyslog, 2);
}

struct errormsg_arg {
	pthread_barrier_t *barrier;
	const char *text;
	char seen[64];
	int ok;
};

/* errormsg_thread -- set this thread's error text, wait, read it back */
static void *
errormsg_thread(void *arg)
{
	struct errormsg_arg *a = arg;

	for (int i = 0; i < 100; i++) {
		rpma__log(RPMA_LOG_LEVEL_ERROR, "t.c", i, "thread", "%s %d", a->text, i);
		pthread_barrier_wait(a->barrier);
		char expected[64];

		snprintf(expected, sizeof(expected), "%s %d", a->text, i);
		snprintf(a->seen, sizeof(a->seen), "%s", rpma_errormsg());
		if (strcmp(a->seen, expected) != 0)
			return NULL;
		pthread_barrier_wait(a->barrier);
	}
	a->ok = 1;
	return NULL;
}

/* errormsg_per_thread -- each thread sees only its own last error text */
static void
errormsg_per_thread(void **state)
{
	pthread_barrier_t barrier;
	struct errormsg_arg a = {&barrier, "alpha", "", 0};
	struct errormsg_arg b = {&barrier, "beta", "", 0};
	pthread_t ta, tb;

	(void)state;
	rpma__log(RPMA_LOG_LEVEL_ERROR, "m.c", 1, "main", "main text");
	assert_int_equal(pthread_barrier_init(&barrier, NULL, 2), 0);
	assert_int_equal(pthread_create(&ta, NULL, errormsg_thread, &a), 0);
	assert_int_equal(pthread_create(&tb, NULL, errormsg_thread, &b), 0);
	assert_int_equal(pthread_join(ta, NULL), 0);
	assert_int_equal(pthread_join(tb, NULL), 0);
	pthread_barrier_destroy(&barrier);

	assert_int_equal(a.ok, 1);
	assert_int_equal(b.ok, 1);
	assert_string_equal(a.seen, "alpha 99");
	assert_string_equal(b.seen, "beta 99");
	assert_string_equal(rpma_errormsg(), "main text");
}

/* default_to_file -- the default function writes the main threshold to RPMA_LOG_FILE */
static void
default_to_file(void **state)
{
	char path[128], buf[4096];

	(void)state;
	snprintf(path, sizeof(path), "%s/rpma.log", Tmpdir);
	assert_int_equal(setenv("RPMA_LOG_FILE", path, 1), 0);
	rpma__log_init();

	assert_int_equal(rpma_log_set_threshold(RPMA_LOG_THRESHOLD, RPMA_LOG_LEVEL_DEBUG), 0);
	rpma__log(RPMA_LOG_LEVEL_FATAL, "d/a.c", 1, "fa", "m%d", 0);
	rpma__log(RPMA_LOG_LEVEL_ERROR, "d/a.c", 2, "fb", "m%d", 1);
	rpma__log(RPMA_LOG_LEVEL_WARNING, "d/a.c", 3, "fc", "m%d", 2);
	rpma__log(RPMA_LOG_LEVEL_NOTICE, "d/a.c", 4, "fd", "m%d", 3);
	rpma__log(RPMA_LOG_LEVEL_INFO, "d/a.c", 5, "fe", "m%d", 4);
	rpma__log(RPMA_LOG_LEVEL_DEBUG, "d/a.c", 6, "ff", "m%d", 5);
	/* not a level: nothing is written */
	rpma__log(RPMA_LOG_DISABLED, "d/a.c", 7, "fg", "m%d", 6);
	assert_int_equal(rpma_log_set_threshold(RPMA_LOG_THRESHOLD, RPMA_LOG_LEVEL_WARNING), 0);
	rpma__log(RPMA_LOG_LEVEL_NOTICE, "d/a.c", 8, "fh", "above the threshold");
	/* within the main threshold only: no syslog */
	assert_int_equal(Nsyslog, 0);
	rpma__log_fini();

	read_file(path, buf, sizeof(buf));
	assert_string_equal(buf, "*FATAL* a.c:1 fa: m0\n"
				 "*ERROR* a.c:2 fb: m1\n"
				 "*WARNING* a.c:3 fc: m2\n"
				 "*NOTE* a.c:4 fd: m3\n"
				 "*INFO* a.c:5 fe: m4\n"
				 "*DEBUG* a.c:6 ff: m5\n");

	/* the file is opened for appending */
	rpma__log_init();
	rpma__log(RPMA_LOG_LEVEL_ERROR, "b.c", 9, "fi", "appended");
	rpma__log_fini();
	read_file(path, buf, sizeof(buf));
	assert_non_null(strstr(buf, "*FATAL* a.c:1 fa: m0\n"));
	assert_non_null(strstr(buf, "*DEBUG* a.c:6 ff: m5\n*ERROR* b.c:9 fi: appended\n"));
}

/* default_to_syslog -- the auxiliary threshold sends messages to syslog only */
static void
default_to_syslog(void **state)
{
	char path[128], buf[256];

	(void)state;
	snprintf(path, sizeof(path), "%s/rpma.log", Tmpdir);
	assert_int_equal(setenv("RPMA_LOG_FILE", path, 1), 0);
	rpma__log_init();

	assert_int_equal(rpma_log_set_threshold(RPMA_LOG_THRESHOLD_AUX, RPMA_LOG_LEVEL_NOTICE), 0);
	rpma__log(RPMA_LOG_LEVEL_NOTICE, "x/s.c", 11, "sf", "to syslog %d", 5);
	assert_int_equal(Nsyslog, 1);
	assert_int_equal(Syslog_pri, LOG_NOTICE);
	assert_string_equal(Syslog_msg, "*NOTE* s.c:11 sf: to syslog 5");
	rpma__log(RPMA_LOG_LEVEL_INFO, "x/s.c", 12, "sf", "not to syslog");
	assert_int_equal(Nsyslog, 1);
	rpma__log(RPMA_LOG_LEVEL_FATAL, "x/s.c", 13, "sf", "fatal");
	assert_int_equal(Nsyslog, 2);
	assert_int_equal(Syslog_pri, LOG_CRIT);
	rpma__log_fini();

	/* the main threshold is disabled: the file stays empty */
	read_file(path, buf, sizeof(buf));
	assert_string_equal(buf, "");
}

/* default_to_stderr -- without RPMA_LOG_FILE the default function writes to stderr */
static void
default_to_stderr(void **state)
{
	char buf[1024];

	(void)state;
	rpma__log_init();
	assert_int_equal(rpma_log_set_threshold(RPMA_LOG_THRESHOLD, RPMA_LOG_LEVEL_ERROR), 0);
	capture_stderr_begin();
	rpma__log(RPMA_LOG_LEVEL_ERROR, "e/e.c", 5, "ef", "on stderr");
	rpma__log(RPMA_LOG_LEVEL_WARNING, "e/e.c", 6, "ef", "not shown");
	capture_stderr_end(buf, sizeof(buf));
	assert_string_equal(buf, "*ERROR* e.c:5 ef: on stderr\n");
}

/* log_file_pid -- a trailing '-' in RPMA_LOG_FILE gets the PID appended */
static void
log_file_pid(void **state)
{
	char name[128], path[160], buf[256];
	struct stat st;

	(void)state;
	snprintf(name, sizeof(name), "%s/rpma-", Tmpdir);
	snprintf(path, sizeof(path), "%s%d", name, (int)getpid());
	assert_int_equal(setenv("RPMA_LOG_FILE", name, 1), 0);
	rpma__log_init();
	assert_int_equal(rpma_log_set_threshold(RPMA_LOG_THRESHOLD, RPMA_LOG_LEVEL_ERROR), 0);
	rpma__log(RPMA_LOG_LEVEL_ERROR, "p.c", 1, "pf", "with pid");
	rpma__log_fini();

	assert_int_equal(stat(name, &st), -1);
	read_file(path, buf, sizeof(buf));
	assert_string_equal(buf, "*ERROR* p.c:1 pf: with pid\n");
}

/* log_file_unopenable -- an unopenable RPMA_LOG_FILE is reported, stderr is used */
static void
log_file_unopenable(void **state)
{
	char path[128], expected[256], buf[1024];

	(void)state;
	snprintf(path, sizeof(path), "%s/no/such/dir/log", Tmpdir);
	assert_int_equal(setenv("RPMA_LOG_FILE", path, 1), 0);
	assert_int_equal(rpma_log_set_threshold(RPMA_LOG_THRESHOLD, RPMA_LOG_LEVEL_ERROR), 0);

	capture_stderr_begin();
	rpma__log_init();
	rpma__log(RPMA_LOG_LEVEL_ERROR, "u.c", 3, "uf", "fallback");
	capture_stderr_end(buf, sizeof(buf));

	snprintf(expected, sizeof(expected),
		 "librpma: cannot open RPMA_LOG_FILE '%s': No such file or directory\n"
		 "*ERROR* u.c:3 uf: fallback\n",
		 path);
	assert_string_equal(buf, expected);
}

/* log_file_bad_names -- an empty or too long name is refused with a reason */
static void
log_file_bad_names(void **state)
{
	static char longname[5000];
	char buf[8192];

	(void)state;
	assert_int_equal(setenv("RPMA_LOG_FILE", "", 1), 0);
	capture_stderr_begin();
	rpma__log_init();
	capture_stderr_end(buf, sizeof(buf));
	assert_string_equal(buf,
			    "librpma: cannot open RPMA_LOG_FILE '': No such file or directory\n");

	memset(longname, 'n', sizeof(longname) - 1);
	longname[0] = '/';
	longname[sizeof(longname) - 1] = '\0';
	assert_int_equal(setenv("RPMA_LOG_FILE", longname, 1), 0);
	capture_stderr_begin();
	rpma__log_init();
	capture_stderr_end(buf, sizeof(buf));
	assert_non_null(strstr(buf, "librpma: cannot open RPMA_LOG_FILE '/nnn"));
	assert_non_null(strstr(buf, "': File name too long\n"));
}

/* env_log_level_valid -- RPMA_LOG_LEVEL 0-4 sets the main threshold */
static void
env_log_level_valid(void **state)
{
	static const struct {
		const char *value;
		enum rpma_log_level level;
	} cases[] = {
	    {"0", RPMA_LOG_DISABLED},	{"1", RPMA_LOG_LEVEL_ERROR}, {"2", RPMA_LOG_LEVEL_NOTICE},
	    {"3", RPMA_LOG_LEVEL_INFO}, {"4", RPMA_LOG_LEVEL_DEBUG},
	};
	enum rpma_log_level level;

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		/* start from a value different from the expected one */
		assert_int_equal(rpma_log_set_threshold(RPMA_LOG_THRESHOLD, RPMA_LOG_LEVEL_FATAL),
				 0);
		assert_int_equal(setenv("RPMA_LOG_LEVEL", cases[i].value, 1), 0);
		rpma__log_init();
		assert_int_equal(rpma_log_get_threshold(RPMA_LOG_THRESHOLD, &level), 0);
		assert_int_equal(level, cases[i].level);
		/* the auxiliary threshold is not affected */
		assert_int_equal(rpma_log_get_threshold(RPMA_LOG_THRESHOLD_AUX, &level), 0);
		assert_int_equal(level, RPMA_LOG_DISABLED);
	}
}

/* env_log_level_invalid -- any other value is ignored with a warning */
static void
env_log_level_invalid(void **state)
{
	static const char *const values[] = {"5", "9", "-1", "12", "1x", "x", " 1", ""};
	enum rpma_log_level level;
	char expected[128];

	(void)state;
	assert_int_equal(rpma_log_set_function(rec_log_function), 0);
	for (size_t i = 0; i < sizeof(values) / sizeof(values[0]); i++) {
		Nrecs = 0;
		assert_int_equal(rpma_log_set_threshold(RPMA_LOG_THRESHOLD, RPMA_LOG_LEVEL_WARNING),
				 0);
		assert_int_equal(setenv("RPMA_LOG_LEVEL", values[i], 1), 0);
		rpma__log_init();
		assert_int_equal(rpma_log_get_threshold(RPMA_LOG_THRESHOLD, &level), 0);
		assert_int_equal(level, RPMA_LOG_LEVEL_WARNING);
		assert_int_equal(Nrecs, 1);
		assert_int_equal(Recs[0].level, RPMA_LOG_LEVEL_WARNING);
		snprintf(expected, sizeof(expected), "RPMA_LOG_LEVEL='%s' is not 0-4, ignored",
			 values[i]);
		assert_string_equal(Recs[0].msg, expected);
	}
}

/* strerror_text -- rpma__strerror gives the system's text */
static void
strerror_text(void **state)
{
	(void)state;
	assert_string_equal(rpma__strerror(ENOENT), "No such file or directory");
	assert_string_equal(rpma__strerror(EINVAL), "Invalid argument");
}

int
main(void)
{
	/* the thresholds before any test touches them */
	rpma_log_get_threshold(RPMA_LOG_THRESHOLD, &Initial_threshold[RPMA_LOG_THRESHOLD]);
	rpma_log_get_threshold(RPMA_LOG_THRESHOLD_AUX, &Initial_threshold[RPMA_LOG_THRESHOLD_AUX]);

	const struct CMUnitTest tests[] = {
	    cmocka_unit_test_setup_teardown(thresholds_default, setup, teardown),
	    cmocka_unit_test_setup_teardown(threshold_set_get, setup, teardown),
	    cmocka_unit_test_setup_teardown(threshold_set_invalid, setup, teardown),
	    cmocka_unit_test_setup_teardown(threshold_get_invalid, setup, teardown),
	    cmocka_unit_test_setup_teardown(function_receives, setup, teardown),
	    cmocka_unit_test_setup_teardown(function_threshold, setup, teardown),
	    cmocka_unit_test_setup_teardown(function_library_message, setup, teardown),
	    cmocka_unit_test_setup_teardown(function_restore_default, setup, teardown),
	    cmocka_unit_test_setup_teardown(errormsg_last_error, setup, teardown),
	    cmocka_unit_test_setup_teardown(log_keeps_errno, setup, teardown),
	    cmocka_unit_test_setup_teardown(errormsg_per_thread, setup, teardown),
	    cmocka_unit_test_setup_teardown(default_to_file, setup, teardown),
	    cmocka_unit_test_setup_teardown(default_to_syslog, setup, teardown),
	    cmocka_unit_test_setup_teardown(default_to_stderr, setup, teardown),
	    cmocka_unit_test_setup_teardown(log_file_pid, setup, teardown),
	    cmocka_unit_test_setup_teardown(log_file_unopenable, setup, teardown),
	    cmocka_unit_test_setup_teardown(log_file_bad_names, setup, teardown),
	    cmocka_unit_test_setup_teardown(env_log_level_valid, setup, teardown),
	    cmocka_unit_test_setup_teardown(env_log_level_invalid, setup, teardown),
	    cmocka_unit_test_setup_teardown(strerror_text, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
