/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Exports softrdma keeps for ABI compatibility without implementing them.
 * Each fails the way the real call signals failure (NULL with errno, an
 * errno return, or -1 with errno), never with a fake success. The old
 * IBVERBS_1.0 structure layouts are not supported: the 1.0 aliases, whose
 * list is generated from the installed library, all fail with ENOSYS.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "softrdma.h"

/* Stub returning an errno value (int-returning verbs and private helpers). */
#define SOFTRDMA_STUB_ERR(name, err)                                                               \
	int name(void);                                                                            \
	int name(void)                                                                             \
	{                                                                                          \
		return err;                                                                        \
	}

/* Stub returning NULL with errno set. */
#define SOFTRDMA_STUB_NULL(name, err)                                                              \
	void *name(void);                                                                          \
	void *name(void)                                                                           \
	{                                                                                          \
		errno = err;                                                                       \
		return NULL;                                                                       \
	}

/* Stub returning -1 with errno set. */
#define SOFTRDMA_STUB_NEG(name, err)                                                               \
	int name(void);                                                                            \
	int name(void)                                                                             \
	{                                                                                          \
		errno = err;                                                                       \
		return -1;                                                                         \
	}

/* Old-ABI alias: defined once per generated SOFTRDMA_COMPAT line. */
#define SOFTRDMA_COMPAT(name, ver)                                                                 \
	long softrdma__compat_##name(void);                                                        \
	long softrdma__compat_##name(void)                                                         \
	{                                                                                          \
		errno = ENOSYS;                                                                    \
		return 0;                                                                          \
	}                                                                                          \
	__asm__(".symver softrdma__compat_" #name ", " #name "@" ver);

#include "compat_symver.h"

#undef ibv_reg_mr
#undef ibv_reg_mr_iova
#undef ibv_query_port

/* Public verbs without an implementation. */
struct ibv_ah *
ibv_create_ah(struct ibv_pd *pd, struct ibv_ah_attr *attr)
{
	(void)pd;
	(void)attr;
	errno = EOPNOTSUPP;
	return NULL;
}

/* Address handles cannot exist, so destroying one is invalid. */
int
ibv_destroy_ah(struct ibv_ah *ah)
{
	(void)ah;
	return EINVAL;
}

/* Address handles are for UD QPs, which softrdma does not offer. */
struct ibv_ah *
ibv_create_ah_from_wc(struct ibv_pd *pd, struct ibv_wc *wc, struct ibv_grh *grh, uint8_t port_num)
{
	(void)pd;
	(void)wc;
	(void)grh;
	(void)port_num;
	errno = EOPNOTSUPP;
	return NULL;
}

/* Address handles are for UD QPs, which softrdma does not offer. */
int
ibv_init_ah_from_wc(struct ibv_context *context, uint8_t port_num, struct ibv_wc *wc,
		    struct ibv_grh *grh, struct ibv_ah_attr *ah_attr)
{
	(void)context;
	(void)port_num;
	(void)wc;
	(void)grh;
	(void)ah_attr;
	errno = EOPNOTSUPP;
	return -1;
}

/* Multicast is UD only. */
int
ibv_attach_mcast(struct ibv_qp *qp, const union ibv_gid *gid, uint16_t lid)
{
	(void)qp;
	(void)gid;
	(void)lid;
	return EOPNOTSUPP;
}

/* Multicast is UD only. */
int
ibv_detach_mcast(struct ibv_qp *qp, const union ibv_gid *gid, uint16_t lid)
{
	(void)qp;
	(void)gid;
	(void)lid;
	return EOPNOTSUPP;
}

/* No enhanced connection establishment. */
int
ibv_query_ece(struct ibv_qp *qp, struct ibv_ece *ece)
{
	(void)qp;
	(void)ece;
	return EOPNOTSUPP;
}

/* No enhanced connection establishment. */
int
ibv_set_ece(struct ibv_qp *qp, struct ibv_ece *ece)
{
	(void)qp;
	(void)ece;
	return EOPNOTSUPP;
}

/* Contexts cannot be shared between processes through a command fd. */
struct ibv_context *
ibv_import_device(int cmd_fd)
{
	(void)cmd_fd;
	errno = EOPNOTSUPP;
	return NULL;
}

/* Objects cannot be imported from another context. */
struct ibv_pd *
ibv_import_pd(struct ibv_context *context, uint32_t pd_handle)
{
	(void)context;
	(void)pd_handle;
	errno = EOPNOTSUPP;
	return NULL;
}

/* Objects cannot be imported from another context. */
struct ibv_mr *
ibv_import_mr(struct ibv_pd *pd, uint32_t mr_handle)
{
	(void)pd;
	(void)mr_handle;
	errno = EOPNOTSUPP;
	return NULL;
}

/* Objects cannot be imported from another context. */
struct ibv_dm *
ibv_import_dm(struct ibv_context *context, uint32_t dm_handle)
{
	(void)context;
	(void)dm_handle;
	errno = EOPNOTSUPP;
	return NULL;
}

/* Nothing was imported, nothing to release. */
void
ibv_unimport_pd(struct ibv_pd *pd)
{
	(void)pd;
}

/* Nothing was imported, nothing to release. */
void
ibv_unimport_mr(struct ibv_mr *mr)
{
	(void)mr;
}

/* Nothing was imported, nothing to release. */
void
ibv_unimport_dm(struct ibv_dm *dm)
{
	(void)dm;
}

/* No dma-buf support. */
struct ibv_mr *
ibv_reg_dmabuf_mr(struct ibv_pd *pd, uint64_t offset, size_t length, uint64_t iova, int fd,
		  int access)
{
	(void)pd;
	(void)offset;
	(void)length;
	(void)iova;
	(void)fd;
	(void)access;
	errno = EOPNOTSUPP;
	return NULL;
}

/* Layer-2 resolution belongs to UD address handles. */
int
ibv_resolve_eth_l2_from_gid(struct ibv_context *context, struct ibv_ah_attr *attr,
			    uint8_t eth_mac[6], uint16_t *vid)
{
	(void)context;
	(void)attr;
	(void)eth_mac;
	(void)vid;
	return EOPNOTSUPP;
}

/* softrdma0 has no sysfs directory. */
const char *
ibv_get_sysfs_path(void)
{
	return "/sys";
}

/* softrdma0 has no sysfs files. */
int
ibv_read_sysfs_file(const char *dir, const char *file, char *buf, size_t size)
{
	(void)dir;
	(void)file;
	(void)buf;
	(void)size;
	errno = ENOENT;
	return -1;
}

/* Kernel ABI copy helpers: softrdma has no kernel ABI. */
SOFTRDMA_STUB_ERR(ibv_copy_ah_attr_from_kern, ENOSYS)
SOFTRDMA_STUB_ERR(ibv_copy_qp_attr_from_kern, ENOSYS)
SOFTRDMA_STUB_ERR(ibv_copy_path_rec_from_kern, ENOSYS)
SOFTRDMA_STUB_ERR(ibv_copy_path_rec_to_kern, ENOSYS)

/* Provider-facing private interface: softrdma loads no providers. */
SOFTRDMA_STUB_ERR(verbs_register_driver_34, ENOSYS)
SOFTRDMA_STUB_ERR(__ioctl_final_num_attrs, ENOSYS)
SOFTRDMA_STUB_ERR(__verbs_log, ENOSYS)
SOFTRDMA_STUB_NULL(_verbs_init_and_alloc_context, ENOSYS)
SOFTRDMA_STUB_ERR(execute_ioctl, ENOSYS)
SOFTRDMA_STUB_ERR(verbs_allow_disassociate_destroy, 0)
SOFTRDMA_STUB_ERR(verbs_init_cq, ENOSYS)
SOFTRDMA_STUB_ERR(verbs_open_device, ENOSYS)
SOFTRDMA_STUB_ERR(verbs_set_ops, ENOSYS)
SOFTRDMA_STUB_ERR(verbs_uninit_context, ENOSYS)
SOFTRDMA_STUB_NEG(ibv_read_ibdev_sysfs_file, ENOENT)
SOFTRDMA_STUB_ERR(ibv_cmd_advise_mr, EOPNOTSUPP)
SOFTRDMA_STUB_ERR(ibv_cmd_alloc_dm, EOPNOTSUPP)
SOFTRDMA_STUB_ERR(ibv_cmd_alloc_mw, EOPNOTSUPP)
SOFTRDMA_STUB_ERR(ibv_cmd_alloc_pd, EOPNOTSUPP)
SOFTRDMA_STUB_ERR(ibv_cmd_attach_mcast, EOPNOTSUPP)
SOFTRDMA_STUB_ERR(ibv_cmd_close_xrcd, EOPNOTSUPP)
SOFTRDMA_STUB_ERR(ibv_cmd_create_ah, EOPNOTSUPP)
SOFTRDMA_STUB_ERR(ibv_cmd_create_counters, EOPNOTSUPP)
SOFTRDMA_STUB_ERR(ibv_cmd_create_cq, EOPNOTSUPP)
SOFTRDMA_STUB_ERR(ibv_cmd_create_cq_ex, EOPNOTSUPP)
SOFTRDMA_STUB_ERR(ibv_cmd_create_flow, EOPNOTSUPP)
SOFTRDMA_STUB_ERR(ibv_cmd_create_flow_action_esp, EOPNOTSUPP)
SOFTRDMA_STUB_ERR(ibv_cmd_create_qp, EOPNOTSUPP)
SOFTRDMA_STUB_ERR(ibv_cmd_create_qp_ex2, EOPNOTSUPP)
SOFTRDMA_STUB_ERR(ibv_cmd_create_qp_ex, EOPNOTSUPP)
SOFTRDMA_STUB_ERR(ibv_cmd_create_rwq_ind_table, EOPNOTSUPP)
SOFTRDMA_STUB_ERR(ibv_cmd_create_srq, EOPNOTSUPP)
SOFTRDMA_STUB_ERR(ibv_cmd_create_srq_ex, EOPNOTSUPP)
SOFTRDMA_STUB_ERR(ibv_cmd_create_wq, EOPNOTSUPP)
SOFTRDMA_STUB_ERR(ibv_cmd_dealloc_mw, EOPNOTSUPP)
SOFTRDMA_STUB_ERR(ibv_cmd_dealloc_pd, EOPNOTSUPP)
SOFTRDMA_STUB_ERR(ibv_cmd_dereg_mr, EOPNOTSUPP)
SOFTRDMA_STUB_ERR(ibv_cmd_destroy_ah, EOPNOTSUPP)
SOFTRDMA_STUB_ERR(ibv_cmd_destroy_counters, EOPNOTSUPP)
SOFTRDMA_STUB_ERR(ibv_cmd_destroy_cq, EOPNOTSUPP)
SOFTRDMA_STUB_ERR(ibv_cmd_destroy_flow, EOPNOTSUPP)
SOFTRDMA_STUB_ERR(ibv_cmd_destroy_flow_action, EOPNOTSUPP)
SOFTRDMA_STUB_ERR(ibv_cmd_destroy_qp, EOPNOTSUPP)
SOFTRDMA_STUB_ERR(ibv_cmd_destroy_rwq_ind_table, EOPNOTSUPP)
SOFTRDMA_STUB_ERR(ibv_cmd_destroy_srq, EOPNOTSUPP)
SOFTRDMA_STUB_ERR(ibv_cmd_destroy_wq, EOPNOTSUPP)
SOFTRDMA_STUB_ERR(ibv_cmd_detach_mcast, EOPNOTSUPP)
SOFTRDMA_STUB_ERR(ibv_cmd_free_dm, EOPNOTSUPP)
SOFTRDMA_STUB_ERR(ibv_cmd_get_context, EOPNOTSUPP)
SOFTRDMA_STUB_ERR(ibv_cmd_modify_cq, EOPNOTSUPP)
SOFTRDMA_STUB_ERR(ibv_cmd_modify_flow_action_esp, EOPNOTSUPP)
SOFTRDMA_STUB_ERR(ibv_cmd_modify_qp, EOPNOTSUPP)
SOFTRDMA_STUB_ERR(ibv_cmd_modify_qp_ex, EOPNOTSUPP)
SOFTRDMA_STUB_ERR(ibv_cmd_modify_srq, EOPNOTSUPP)
SOFTRDMA_STUB_ERR(ibv_cmd_modify_wq, EOPNOTSUPP)
SOFTRDMA_STUB_ERR(ibv_cmd_open_qp, EOPNOTSUPP)
SOFTRDMA_STUB_ERR(ibv_cmd_open_xrcd, EOPNOTSUPP)
SOFTRDMA_STUB_ERR(ibv_cmd_poll_cq, EOPNOTSUPP)
SOFTRDMA_STUB_ERR(ibv_cmd_post_recv, EOPNOTSUPP)
SOFTRDMA_STUB_ERR(ibv_cmd_post_send, EOPNOTSUPP)
SOFTRDMA_STUB_ERR(ibv_cmd_post_srq_recv, EOPNOTSUPP)
SOFTRDMA_STUB_ERR(ibv_cmd_query_context, EOPNOTSUPP)
SOFTRDMA_STUB_ERR(ibv_cmd_query_device_any, EOPNOTSUPP)
SOFTRDMA_STUB_ERR(ibv_cmd_query_mr, EOPNOTSUPP)
SOFTRDMA_STUB_ERR(ibv_cmd_query_port, EOPNOTSUPP)
SOFTRDMA_STUB_ERR(ibv_cmd_query_qp, EOPNOTSUPP)
SOFTRDMA_STUB_ERR(ibv_cmd_query_srq, EOPNOTSUPP)
SOFTRDMA_STUB_ERR(ibv_cmd_read_counters, EOPNOTSUPP)
SOFTRDMA_STUB_ERR(ibv_cmd_reg_dm_mr, EOPNOTSUPP)
SOFTRDMA_STUB_ERR(ibv_cmd_reg_dmabuf_mr, EOPNOTSUPP)
SOFTRDMA_STUB_ERR(ibv_cmd_reg_mr, EOPNOTSUPP)
SOFTRDMA_STUB_ERR(ibv_cmd_req_notify_cq, EOPNOTSUPP)
SOFTRDMA_STUB_ERR(ibv_cmd_rereg_mr, EOPNOTSUPP)
SOFTRDMA_STUB_ERR(ibv_cmd_resize_cq, EOPNOTSUPP)
