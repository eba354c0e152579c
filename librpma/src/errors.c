/* SPDX-License-Identifier: BSD-3-Clause */
/* Copyright 2026, the librpma authors */

/*
 * errors.c -- texts of the error codes and the API version check.
 */

#include "librpma.h"
#include "log.h"

/* see librpma.h */
const char *
rpma_err_2str(int ret)
{
	switch (ret) {
	case 0:
		return "Success";
	case RPMA_W_WAIT_FOR_COMPLETION:
		return "Wait for the completion before going on";
	case RPMA_E_NOSUPP:
		return "Not supported";
	case RPMA_E_PROVIDER:
		return "Provider error occurred";
	case RPMA_E_NOMEM:
		return "Out of memory";
	case RPMA_E_INVAL:
		return "Invalid argument";
	case RPMA_E_NO_COMPLETION:
		return "No next completion available";
	case RPMA_E_NO_EVENT:
		return "No next event available";
	case RPMA_E_AGAIN:
		return "Temporary error, try again";
	case RPMA_E_SHARED_CHANNEL:
		return "Completion channel is shared";
	case RPMA_E_NOT_SHARED_CHNL:
		return "Completion channel is not shared";
	case RPMA_E_UNKNOWN:
	default:
		return "Unknown error";
	}
}

/* see librpma.h */
const char *
rpma_check_version(unsigned major_required, unsigned minor_required)
{
	if (major_required != RPMA_MAJOR_VERSION) {
		RPMA_LOG_ERROR("librpma major version %u required, this is %d.%d", major_required,
			       RPMA_MAJOR_VERSION, RPMA_MINOR_VERSION);
		return "librpma major version mismatch";
	}
	if (minor_required > RPMA_MINOR_VERSION) {
		RPMA_LOG_ERROR("librpma version %u.%u required, this is %d.%d", major_required,
			       minor_required, RPMA_MAJOR_VERSION, RPMA_MINOR_VERSION);
		return "librpma minor version too old";
	}
	return NULL;
}
