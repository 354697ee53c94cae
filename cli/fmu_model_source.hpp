// The C source that describes the model to the FMU's FMI functions: the constant `mdl_fmu`
// of runtime/fmi/fmu_model.h (names, start values, parameters, the method and its settings),
// with every double in hexadecimal so that the FMU starts from the exported values to the
// last bit. Compiled together with fmu_model.h (fmu_model_header() gives its text).
#pragma once

#include "fmu_contents.hpp"

#include <string>

namespace mdl::cli {

std::string fmu_model_source(const FmuContents& contents);
// The text of runtime/fmi/fmu_model.h, which the source includes.
const char* fmu_model_header();

} // namespace mdl::cli
