#pragma once
#define KLT_OUTSIDE_OFFSET 0.5f
