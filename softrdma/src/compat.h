/* SPDX-License-Identifier: BSD-3-Clause */
/* Entry points softrdma does not implement, and the old 1.0 ABI aliases. */
#ifndef SOFTRDMA_COMPAT_H
#define SOFTRDMA_COMPAT_H

#include "softrdma.h"

#endif
