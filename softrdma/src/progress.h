/* SPDX-License-Identifier: BSD-3-Clause */
/* The per-process progress thread that serves the responder side of QPs. */
#ifndef SOFTRDMA_PROGRESS_H
#define SOFTRDMA_PROGRESS_H

#include "softrdma.h"

#endif
