// The driver's own version in the probe line (part of the result cache's key, docs/pipeline.md).
#include <catch2/catch.hpp>

#include "runner/device.h"

using klineage::runner::driverReleaseFrom;

TEST_CASE("runner: the driver version is read from /proc/driver/nvidia/version", "[runner]") {
  CHECK(driverReleaseFrom("NVRM version: NVIDIA UNIX x86_64 Kernel Module  570.86.15  Fri Jan 24 2025\n"
                          "GCC version:  gcc version 12.2.0 (Debian 12.2.0-14)\n") == "570.86.15");
  CHECK(driverReleaseFrom("NVRM version: NVIDIA UNIX Open Kernel Module for x86_64  575.51.03  Release Build\n") ==
        "575.51.03");
  CHECK(driverReleaseFrom("") == "");
  CHECK(driverReleaseFrom("NVRM version: unknown\n12.2.0 on the next line does not count\n") == "");
}
