// cmark-gfm and its GitHub extensions (tables, strikethrough, autolinks, task lists, tag filter).
#ifndef GALLERYGEN_CCMARKGFM_SHIM_H
#define GALLERYGEN_CCMARKGFM_SHIM_H

#include <cmark-gfm.h>
#include <cmark-gfm-core-extensions.h>

#endif
