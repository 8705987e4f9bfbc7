/* tensorscope.h: the core library's single public include
 *
 * Copyright 2026 The Tensorscope authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include "ts-audit.h"
#include "ts-dtype.h"
#include "ts-error.h"
#include "ts-file-part.h"
#include "ts-gguf-file.h"
#include "ts-layout.h"
#include "ts-metadata-entry.h"
#include "ts-model-file.h"
#include "ts-model-loader.h"
#include "ts-region.h"
#include "ts-report.h"
#include "ts-safetensors-file.h"
#include "ts-sample.h"
#include "ts-tensor.h"
