// The FMU's binary, binaries/linux64/<modelIdentifier>.so: the model's kernel object, its C
// description and mdl's FMI library (libmdl_fmi.a: the fmi2 functions and the runtime), linked
// by the system's C++ compiler into a self-contained shared object (libstdc++ and libgcc
// linked statically; it needs only libc and libm) that exports the fmi2 functions only.
#pragma once

#include "fmu_contents.hpp"
#include "link_support.hpp"

#include <string>

namespace mdl::exporting {

// The shared object's bytes. The compiler is $CXX when set, else c++.
std::string link_fmu_binary(const FmuContents& contents, const std::string& model_source);

// Where libmdl_fmi.a is: beside an installed mdl (PREFIX/lib), else in the build tree mdl was
// built in. Throws LinkFailure naming the places looked at.
std::string fmi_library();

} // namespace mdl::exporting
