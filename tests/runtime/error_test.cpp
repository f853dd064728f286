// clkr::Error carries the OpenCL error name; cl::Error from the bindings is translated.
#include "clkr/runtime/error.hpp"

#include <gtest/gtest.h>

TEST(Error, NamesOpenClCodes) {
  EXPECT_EQ(clkr::cl_error_name(CL_OUT_OF_RESOURCES), "CL_OUT_OF_RESOURCES");
  EXPECT_EQ(clkr::cl_error_name(CL_MEM_OBJECT_ALLOCATION_FAILURE), "CL_MEM_OBJECT_ALLOCATION_FAILURE");
  EXPECT_EQ(clkr::cl_error_name(-1001), "CL_PLATFORM_NOT_FOUND_KHR");
  EXPECT_EQ(clkr::cl_error_name(-12345), "CL_UNKNOWN_ERROR(-12345)");
  clkr::Error plain("bad input");
  EXPECT_EQ(plain.code(), CL_SUCCESS);
  EXPECT_TRUE(plain.cl_name().empty());
  EXPECT_THROW(clkr::check_cl(CL_INVALID_VALUE, "clFoo"), clkr::Error);
  EXPECT_NO_THROW(clkr::check_cl(CL_SUCCESS, "clFoo"));
}

TEST(Error, TranslatesBindingErrors) {
  try {
    clkr::translate_cl_errors("enqueue axpy",
                              []() -> int { throw cl::Error(CL_INVALID_KERNEL_ARGS, "clEnqueueNDRangeKernel"); });
    FAIL();
  } catch (const clkr::Error& e) {
    EXPECT_EQ(e.code(), CL_INVALID_KERNEL_ARGS);
    EXPECT_NE(std::string(e.what()).find("enqueue axpy"), std::string::npos);
    EXPECT_NE(std::string(e.what()).find("CL_INVALID_KERNEL_ARGS"), std::string::npos);
  }
  EXPECT_EQ(clkr::translate_cl_errors("ok", [] { return 42; }), 42);
}

TEST(Error, ParseErrorNamesFileAndLine) {
  clkr::ParseError e("a.mtx", 7, "bad token");
  EXPECT_EQ(std::string(e.what()), "a.mtx:7: bad token");
  EXPECT_EQ(e.line(), 7u);
  EXPECT_EQ(e.file(), "a.mtx");
}
