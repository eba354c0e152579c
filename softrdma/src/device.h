/* SPDX-License-Identifier: BSD-3-Clause */
/* The softrdma0 device and its contexts. */
#ifndef SOFTRDMA_DEVICE_H
#define SOFTRDMA_DEVICE_H

#include "softrdma.h"

#endif
