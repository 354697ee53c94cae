// The C source that describes the model to the FMU's FMI functions: the constant `mdl_fmu`
// of runtime/fmi/fmu_model.h (names, start values, parameters, the method and its settings),
// with every double in hexadecimal so that the FMU starts from the exported values to the
// last bit. Compiled together with fmu_model.h (fmu_model_header() gives its text).
#pragma once

#include "fmu_contents.hpp"

#include <string>

namespace mdl::exporting {

// `definition`: what the description is (the FMU's global `mdl_fmu`; a C library's static
// constant).
std::string fmu_model_source(const FmuContents& contents,
                             const std::string& definition = "const mdl_fmu_model mdl_fmu");
// The text of runtime/fmi/fmu_model.h, which the source includes.
const char* fmu_model_header();
// The text of runtime/fmi/c_library.h (the C library's entry point; includes fmu_model.h).
const char* c_library_header();

} // namespace mdl::exporting
