# Installation: `cmake --install BUILD [--prefix DIR]` puts in DIR
#   bin/mdl                              the command-line program
#   bin/mdl-sweep-mpi                    the same with MPI, which `mpirun mdl sweep` runs
#   lib/libmdl.so                        the embedding API (C++ and C), one shared library
#   lib/libmdl_fmi.a                     the FMI library mdl export links into FMUs
#   include/mdl/{mdl.h, mdl/*.hpp, abi/kernel_abi.h}
#                                        its headers; the one include directory is include/mdl
#   lib/cmake/mdl/                       find_package(mdl): imported target mdl::mdl
#   lib/pkgconfig/mdl.pc                 pkg-config --cflags --libs mdl
# libmdl.so holds the API, every compiler stage (parse, check, symbolic, codegen) and the
# runtime's methods (mdl/simulate.hpp runs them), whose symbols stay hidden (only the API's
# own objects export theirs), and LLVM 19's static component libraries (position-independent
# in Debian's packages; hidden too), so a host does not load and relocate all of libLLVM.so at
# start-up. Its other dependencies are private and shared: fmt, zlib, zstd and libstdc++ are
# found by the dynamic loader,
# so a consumer needs neither their headers nor find_dependency(): the public headers include
# only mdl's own and the standard library's. The build tree's targets (mdl_api and the static
# stage libraries the tests link) are unchanged.
include(GNUInstallDirs)
include(CMakePackageConfigHelpers)

# The shared library is linked from the objects of mdl_compile and mdl_api (compiled once, for
# both: compiler/api/CMakeLists.txt) and links what they link, so a file or library added to
# compiler/api joins both. The stage libraries are linked into it, hence position-independent
# code.
get_target_property(mdl_api_dir mdl_api SOURCE_DIR)
get_target_property(mdl_api_libraries mdl_api LINK_LIBRARIES)
get_target_property(mdl_compile_libraries mdl_compile LINK_LIBRARIES)
list(REMOVE_ITEM mdl_api_libraries mdl_compile)
set(mdl_shared_sources $<TARGET_OBJECTS:mdl_compile> $<TARGET_OBJECTS:mdl_api>)
set_target_properties(mdl_source mdl_parse mdl_flatten mdl_check mdl_symbolic mdl_codegen
                      mdl_runtime mdl_multiscale mdl_analysis
                      PROPERTIES POSITION_INDEPENDENT_CODE ON)

add_library(mdl_shared SHARED ${mdl_shared_sources})
set_target_properties(mdl_shared PROPERTIES
  OUTPUT_NAME mdl
  EXPORT_NAME mdl
  VERSION ${PROJECT_VERSION}
  SOVERSION ${PROJECT_VERSION_MAJOR}.${PROJECT_VERSION_MINOR}
  INSTALL_RPATH_USE_LINK_PATH ON # the directories of its shared dependencies
  MDL_STATIC_LLVM ON) # compiler/codegen/CMakeLists.txt
target_link_options(mdl_shared PRIVATE "LINKER:--as-needed")
target_include_directories(mdl_shared PUBLIC
  "$<BUILD_INTERFACE:${mdl_api_dir}/include;${PROJECT_SOURCE_DIR};${PROJECT_SOURCE_DIR}/compiler>"
  "$<INSTALL_INTERFACE:${CMAKE_INSTALL_INCLUDEDIR}/mdl>")
target_compile_features(mdl_shared PUBLIC cxx_std_20) # compiled_model.hpp uses std::span
target_link_libraries(mdl_shared PRIVATE ${mdl_compile_libraries} ${mdl_api_libraries})
add_dependencies(mdl_shared mdl_fmi) # export links FMUs with it
# Exported: the API's functions and classes. Not exported: the static stage libraries'
# symbols and the inline functions of the headers compiled_model.cpp includes (its objects are
# compiled with -fvisibility-inlines-hidden). Every undefined symbol must be resolved by the
# libraries named here (sanitizer runtimes excepted: clang leaves them to the executable).
target_link_options(mdl_shared PRIVATE "LINKER:--exclude-libs,ALL"
                    "LINKER:--version-script=${CMAKE_CURRENT_LIST_DIR}/libmdl.map")
set_property(TARGET mdl_shared APPEND PROPERTY LINK_DEPENDS ${CMAKE_CURRENT_LIST_DIR}/libmdl.map)
if(NOT MDL_SANITIZE AND NOT MDL_FUZZ)
  target_link_options(mdl_shared PRIVATE "LINKER:--no-undefined")
endif()

# The installed programs and libraries carry no debug info (mdl is 230 MB with it, 47 MB
# without): `cmake --install` strips them, as `--strip` would, unless the build was configured
# with -DMDL_INSTALL_DEBUG_INFO=ON. The build tree's own files keep theirs (RelWithDebInfo).
option(MDL_INSTALL_DEBUG_INFO "cmake --install keeps the debug info of mdl and libmdl.so" OFF)
if(NOT MDL_INSTALL_DEBUG_INFO)
  install(CODE "if(NOT DEFINED CMAKE_INSTALL_DO_STRIP)\n  set(CMAKE_INSTALL_DO_STRIP 1)\nendif()")
endif()

set_target_properties(mdl PROPERTIES INSTALL_RPATH_USE_LINK_PATH ON)
install(TARGETS mdl RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
if(TARGET mdl-sweep-mpi) # `mpirun mdl sweep` runs it from mdl's directory
  set_target_properties(mdl-sweep-mpi PROPERTIES INSTALL_RPATH_USE_LINK_PATH ON)
  install(TARGETS mdl-sweep-mpi RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
endif()
install(TARGETS mdl_shared EXPORT mdlTargets LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR})
install(FILES ${mdl_api_dir}/include/mdl.h DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/mdl)
install(DIRECTORY ${mdl_api_dir}/include/mdl DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/mdl
        FILES_MATCHING PATTERN "*.hpp" PATTERN "*.h")
install(FILES ${PROJECT_SOURCE_DIR}/abi/kernel_abi.h
        DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/mdl/abi)

set(mdl_cmake_dir ${CMAKE_INSTALL_LIBDIR}/cmake/mdl)
install(EXPORT mdlTargets NAMESPACE mdl:: DESTINATION ${mdl_cmake_dir})
configure_package_config_file(${CMAKE_CURRENT_LIST_DIR}/mdlConfig.cmake.in
                              ${PROJECT_BINARY_DIR}/mdlConfig.cmake
                              INSTALL_DESTINATION ${mdl_cmake_dir})
# 0.x: a minor version may break the API, so only the same major.minor is compatible.
write_basic_package_version_file(${PROJECT_BINARY_DIR}/mdlConfigVersion.cmake
                                 COMPATIBILITY SameMinorVersion)
install(FILES ${PROJECT_BINARY_DIR}/mdlConfig.cmake ${PROJECT_BINARY_DIR}/mdlConfigVersion.cmake
        DESTINATION ${mdl_cmake_dir})

# pkg-config: the prefix is found from the .pc file's own place (${pcfiledir}), so the file
# stays right for `cmake --install --prefix` to any directory.
set(mdl_pkgconfig_dir ${CMAKE_INSTALL_LIBDIR}/pkgconfig)
file(RELATIVE_PATH mdl_pc_to_prefix /${mdl_pkgconfig_dir} /)
string(REGEX REPLACE "/$" "" mdl_pc_to_prefix "${mdl_pc_to_prefix}")
configure_file(${CMAKE_CURRENT_LIST_DIR}/mdl.pc.in ${PROJECT_BINARY_DIR}/mdl.pc @ONLY)
install(FILES ${PROJECT_BINARY_DIR}/mdl.pc DESTINATION ${mdl_pkgconfig_dir})

# lib/libmdl_fmi.a: the FMI library `mdl export --fmu` links into each FMU (runtime/fmi); an
# installed mdl finds it at ../lib from its own executable.
install(TARGETS mdl_fmi ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR})
