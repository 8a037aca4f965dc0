#pragma once
#ifndef KLT_B_SCALE
#error "the materialized copy must keep the source's COMPILE_DEFINITIONS"
#endif
