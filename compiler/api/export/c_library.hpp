// mdl export --c-library DIR: the model as a plain C library for hosts without LLVM (embedded
// targets, other languages' build systems): DIR/libNAME.a, DIR/libNAME.so and DIR/NAME.h, with
// the kernels compiled ahead of time, the model's description, the runtime (the integrators,
// the multiscale ones included) and one entry point NAME_simulate that runs the model with the
// method and settings chosen at export and hands each row to a callback (docs/fmi.md).
//
// The static archive holds one relocatable object, partially linked from the kernels, the
// description and what the runtime library libmdl_fmi.a contributes, in which every symbol but
// NAME_* is local: two models' libraries link into one program. It needs libstdc++ and libm at
// the final link (`cc main.c libNAME.a -lstdc++ -lm`). The shared object has libstdc++ and
// libgcc linked statically and exports NAME_* only: `cc main.c -LDIR -lNAME`.
#pragma once

#include "fmu_contents.hpp"

#include <string>

namespace mdl::exporting {

// NAME.h: the entry point, the outputs and parameters, the exported settings.
std::string c_library_header_text(const FmuContents& contents);

// Writes the three files into `folder` (created when missing). Throws LinkFailure when the
// compiler, objcopy or ar fails, WriteFailure when a file cannot be written.
void write_c_library(const FmuContents& contents, const std::string& folder);

} // namespace mdl::exporting
