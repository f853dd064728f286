// `clkr solve --precond amg --amg-setup auto|device|host`: where the hierarchy was built, in the report
// and the JSON (setup_on, setup_note), the host's fallback with its reason, and a bad value refused.
#include <string>

#include "app_test_support.hpp"

using namespace app_test;

namespace {

Json amg_json(const std::vector<std::string>& extra) {
  std::vector<std::string> args = {"solve", "poisson3d:10", "--precond", "amg", "--json"};
  args.insert(args.end(), extra.begin(), extra.end());
  const Result r = run_clkr(args);
  EXPECT_EQ(r.code, 0) << describe(r);
  return parse_json(r.out)["preconditioner"];
}

TEST(AmgSetupOption, SaysWhereTheHierarchyWasBuilt) {
  const Json device = amg_json({"--amg-setup", "device"});
  // A device without fp64 cannot: the host builds it and says why.
  if (device["setup_on"].text == "host") {
    EXPECT_NE(device["setup_note"].text.find("fp64"), std::string::npos) << device["setup_note"].text;
  } else {
    EXPECT_EQ(device["setup_on"].text, "device");
    EXPECT_EQ(device["setup_note"].text, "");
    EXPECT_TRUE(device["setup_phases"].has("galerkin product"));
  }
  const Json host = amg_json({"--amg-setup", "host"});
  EXPECT_EQ(host["setup_on"].text, "host");
  EXPECT_TRUE(host["setup_phases"].has("matrix to the host"));
  // Blocks are the host's (the first reason given where there is also no fp64).
  const Json blocks = amg_json({"--amg-setup", "device", "--amg-block-size", "2"});
  EXPECT_EQ(blocks["setup_on"].text, "host");
  const char* reason = device["setup_on"].text == "device" ? "block_size 2" : "fp64";
  EXPECT_NE(blocks["setup_note"].text.find(reason), std::string::npos) << blocks["setup_note"].text;
  const Result text = run_clkr({"solve", "poisson3d:10", "--precond", "amg", "--amg-setup", "host"});
  EXPECT_NE(text.out.find("built on    the host"), std::string::npos) << text.out;
}

TEST(AmgSetupOption, RefusesABadValueAndAnotherPreconditioner) {
  Result r = run_clkr({"solve", "poisson3d:10", "--precond", "amg", "--amg-setup", "gpu"});
  EXPECT_EQ(r.code, 2) << describe(r);
  EXPECT_NE(r.err.find("--amg-setup"), std::string::npos) << r.err;
  r = run_clkr({"solve", "poisson3d:10", "--precond", "jacobi", "--amg-setup", "device"});
  EXPECT_EQ(r.code, 2) << describe(r);
  EXPECT_NE(r.err.find("--amg-setup applies to --precond amg only"), std::string::npos) << r.err;
}

}  // namespace
