// Tests of the precision, location and format names and of the precision build options.
#include "clkr/data/precision.hpp"

#include <gtest/gtest.h>

#include "clkr/data/matrix.hpp"
#include "clkr/runtime/error.hpp"

namespace clkr {
namespace {

TEST(Precision, NamesRoundTrip) {
  for (Precision p : {Precision::Single, Precision::QuasiDouble, Precision::Double})
    EXPECT_EQ(parse_precision(to_string(p)), p);
  EXPECT_EQ(to_string(Precision::QuasiDouble), "qdouble");
  EXPECT_EQ(to_string(Location::Host), "host");
  EXPECT_EQ(to_string(Location::Device), "device");
}

TEST(Precision, ParsesAliasesInAnyCase) {
  EXPECT_EQ(parse_precision("float"), Precision::Single);
  EXPECT_EQ(parse_precision("SP"), Precision::Single);
  EXPECT_EQ(parse_precision("Quasi-Double"), Precision::QuasiDouble);
  EXPECT_EQ(parse_precision("qd"), Precision::QuasiDouble);
  EXPECT_EQ(parse_precision("DP"), Precision::Double);
}

TEST(Precision, RejectsUnknownNames) {
  for (const char* bad : {"", "half", "doubles", " single"}) {
    try {
      parse_precision(bad);
      ADD_FAILURE() << "accepted '" << bad << "'";
    } catch (const Error& e) {
      EXPECT_NE(std::string(e.what()).find("unknown precision"), std::string::npos) << e.what();
    }
  }
}

TEST(Precision, BuildOptionsAndSizes) {
  EXPECT_EQ(precision_build_option(Precision::Single), "-DCLKR_SINGLE");
  EXPECT_EQ(precision_build_option(Precision::QuasiDouble), "-DCLKR_QDOUBLE");
  EXPECT_EQ(precision_build_option(Precision::Double), "-DCLKR_DOUBLE");
  EXPECT_EQ(bytes_per_element(Precision::Single), 4u);
  EXPECT_EQ(bytes_per_element(Precision::QuasiDouble), 8u);
  EXPECT_EQ(bytes_per_element(Precision::Double), 8u);
}

TEST(Format, NamesRoundTrip) {
  for (Format f : {Format::Csr, Format::Csr4, Format::Ell, Format::Hyb}) EXPECT_EQ(parse_format(to_string(f)), f);
  EXPECT_EQ(parse_format("HYB"), Format::Hyb);
  EXPECT_THROW(parse_format("coo"), Error);
}

}  // namespace
}  // namespace clkr
