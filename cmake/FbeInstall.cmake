# Install rules, the CMake package (find_package(fbe-c CONFIG)), pkg-config files,
# the man page and the Debian package (make package). Included by the top-level
# CMakeLists.txt when FBE_INSTALL is ON.
include(CMakePackageConfigHelpers)

set(FBE_CMAKE_DIR ${CMAKE_INSTALL_LIBDIR}/cmake/fbe-c)
install(TARGETS ${FBE_LIBRARIES} EXPORT fbe-c-targets
  ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR}
  LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR}
  RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
# Installed static libraries export fbe_* only (cmake/FbeLocalize.cmake). That
# takes GNU ld -r and objcopy on object files (not LTO bitcode); elsewhere the
# archives are installed as built, with a warning.
set(FBE_LOCALIZE_SYMBOLS OFF)
if(NOT BUILD_SHARED_LIBS)
  if(CMAKE_LINKER AND CMAKE_OBJCOPY AND NOT APPLE AND NOT CMAKE_INTERPROCEDURAL_OPTIMIZATION)
    set(FBE_LOCALIZE_SYMBOLS ON)
  else()
    message(WARNING "fbe-c: installed static libraries keep their internal symbols "
                    "(no GNU ld/objcopy, or LTO): only the fbe_* names are API")
  endif()
endif()
if(FBE_LOCALIZE_SYMBOLS)
  if(IS_ABSOLUTE "${CMAKE_INSTALL_LIBDIR}")
    set(FBE_INSTALLED_LIBDIR "${CMAKE_INSTALL_LIBDIR}")
  else()
    set(FBE_INSTALLED_LIBDIR "\${CMAKE_INSTALL_PREFIX}/${CMAKE_INSTALL_LIBDIR}")
  endif()
  foreach(lib IN LISTS FBE_LIBRARIES)
    get_target_property(type ${lib} TYPE)
    if(type STREQUAL "INTERFACE_LIBRARY")
      continue()
    endif()
    install(CODE "execute_process(COMMAND \"${CMAKE_COMMAND}\"
        \"-DLIB=\$ENV{DESTDIR}${FBE_INSTALLED_LIBDIR}/$<TARGET_FILE_NAME:${lib}>\"
        \"-DLD=${CMAKE_LINKER}\" \"-DOBJCOPY=${CMAKE_OBJCOPY}\" \"-DAR=${CMAKE_AR}\"
        -P \"${PROJECT_SOURCE_DIR}/cmake/FbeLocalize.cmake\" RESULT_VARIABLE rc)
      if(NOT rc EQUAL 0)
        message(FATAL_ERROR \"localizing the symbols of ${lib} failed\")
      endif()")
  endforeach()
endif()
if(FBE_BUILD_FBEC)
  install(TARGETS fbec RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
  if(TARGET fbec-llvm) # run by fbec for aot and --backend jit|auto, from its own directory
    install(TARGETS fbec-llvm RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
  endif()
  configure_file(docs/fbec.1.in ${CMAKE_CURRENT_BINARY_DIR}/fbec.1 @ONLY)
  install(FILES ${CMAKE_CURRENT_BINARY_DIR}/fbec.1 DESTINATION ${CMAKE_INSTALL_MANDIR}/man1)
endif()
install(DIRECTORY include/fbe DESTINATION ${CMAKE_INSTALL_INCLUDEDIR} FILES_MATCHING PATTERN "*.h")
install(FILES README.md docs/getting-started.md DESTINATION ${CMAKE_INSTALL_DOCDIR})

install(EXPORT fbe-c-targets NAMESPACE fbe:: DESTINATION ${FBE_CMAKE_DIR})
# Which libraries this build has, and what each needs, for the package config.
set(FBE_PACKAGE_COMPONENTS "")
foreach(lib IN LISTS FBE_LIBRARIES)
  string(REGEX REPLACE "^fbe_" "" short ${lib})
  list(APPEND FBE_PACKAGE_COMPONENTS ${short})
endforeach()
configure_package_config_file(cmake/fbe-c-config.cmake.in
  ${CMAKE_CURRENT_BINARY_DIR}/fbe-c-config.cmake
  INSTALL_DESTINATION ${FBE_CMAKE_DIR}
  PATH_VARS CMAKE_INSTALL_BINDIR)
# While the major version is 0 every minor version may break the API.
write_basic_package_version_file(${CMAKE_CURRENT_BINARY_DIR}/fbe-c-config-version.cmake
  COMPATIBILITY SameMinorVersion)
install(FILES
  ${CMAKE_CURRENT_BINARY_DIR}/fbe-c-config.cmake
  ${CMAKE_CURRENT_BINARY_DIR}/fbe-c-config-version.cmake
  cmake/FbeGenerate.cmake
  DESTINATION ${FBE_CMAKE_DIR})

# pkg-config: fbe-NAME.pc per library, relocatable (${pcfiledir}). With static
# libraries the dependencies are in Libs/Requires, so a plain --libs links.
if(IS_ABSOLUTE "${CMAKE_INSTALL_LIBDIR}")
  set(FBE_PC_PREFIX "${CMAKE_INSTALL_PREFIX}")
  set(FBE_PC_LIBDIR "${CMAKE_INSTALL_LIBDIR}")
else()
  file(RELATIVE_PATH up "/root/${CMAKE_INSTALL_LIBDIR}/pkgconfig" "/root")
  string(REGEX REPLACE "/$" "" up "${up}")
  set(FBE_PC_PREFIX "\${pcfiledir}/${up}")
  set(FBE_PC_LIBDIR "\${prefix}/${CMAKE_INSTALL_LIBDIR}")
endif()
set(FBE_PC_runtime_DESC "runtime: arena, buffers, the codec interface, printing, the interpreter (links AOT objects and static C code)")
set(FBE_PC_runtime_REQUIRES "")
set(FBE_PC_runtime_LIBS "-lm")
set(FBE_PC_compiler_DESC "schema loading and the resolved IR")
set(FBE_PC_compiler_REQUIRES "fbe-runtime")
set(FBE_PC_interp_DESC "the interpreter codec (in fbe-runtime; the name stays)")
set(FBE_PC_interp_REQUIRES "fbe-runtime")
set(FBE_PC_jit_DESC "the LLVM JIT codec (fbe_jit_compile)")
# fbe_jit_compile takes a schema: its users load one with the compiler.
set(FBE_PC_jit_REQUIRES "fbe-runtime fbe-compiler")
if(FBE_WITH_LLVM)
  set(FBE_PC_jit_LIBS "-L${LLVM_LIBRARY_DIR} -lLLVM-${LLVM_VERSION_MAJOR}")
endif()
set(FBE_PC_json_DESC "JSON to and from FBE values (simdjson)")
set(FBE_PC_json_REQUIRES "fbe-runtime")
set(FBE_PC_json_REQUIRES_PRIVATE "simdjson")
list(TRANSFORM FBE_CXX_RUNTIME PREPEND "-l" OUTPUT_VARIABLE FBE_PC_json_LIBS)
list(JOIN FBE_PC_json_LIBS " " FBE_PC_json_LIBS)
set(FBE_PC_protocol_DESC "the message protocol: Sender, Receiver, Proxy, Client")
set(FBE_PC_protocol_REQUIRES "fbe-runtime")
set(FBE_PC_protocol_LIBS "-pthread")
foreach(short IN LISTS FBE_PACKAGE_COMPONENTS)
  set(requires "${FBE_PC_${short}_REQUIRES}")
  set(requires_private "${FBE_PC_${short}_REQUIRES_PRIVATE}")
  set(libs "-L\${libdir} -lfbe_${short}")
  get_target_property(type fbe_${short} TYPE)
  if(type STREQUAL "INTERFACE_LIBRARY") # a name kept: its code is in what it requires
    set(libs "")
  endif()
  set(libs_private "${FBE_PC_${short}_LIBS}")
  if(NOT BUILD_SHARED_LIBS)
    string(JOIN " " requires ${requires} ${requires_private})
    string(JOIN " " libs ${libs} ${libs_private})
    set(requires_private "")
    set(libs_private "")
  endif()
  file(CONFIGURE OUTPUT ${CMAKE_CURRENT_BINARY_DIR}/pkgconfig/fbe-${short}.pc @ONLY CONTENT
"prefix=${FBE_PC_PREFIX}
libdir=${FBE_PC_LIBDIR}
includedir=\${prefix}/${CMAKE_INSTALL_INCLUDEDIR}

Name: fbe-${short}
Description: fbe-c ${FBE_PC_${short}_DESC}
Version: ${PROJECT_VERSION}
URL: ${PROJECT_HOMEPAGE_URL}
Requires: ${requires}
Requires.private: ${requires_private}
Cflags: -I\${includedir}
Libs: ${libs}
Libs.private: ${libs_private}
")
  install(FILES ${CMAKE_CURRENT_BINARY_DIR}/pkgconfig/fbe-${short}.pc
          DESTINATION ${CMAKE_INSTALL_LIBDIR}/pkgconfig)
endforeach()

# make package: a .deb of everything installed above (CPack).
if(PROJECT_IS_TOP_LEVEL)
  set(CPACK_GENERATOR DEB)
  set(CPACK_PACKAGE_NAME fbe-c)
  set(CPACK_PACKAGE_VENDOR "fbe-c developers")
  set(CPACK_PACKAGE_CONTACT "fbe-c developers <fbe-c@localhost>")
  set(CPACK_PACKAGE_DESCRIPTION_SUMMARY "Fast Binary Encoding for C: schema compiler fbec, libraries, CMake package")
  set(CPACK_PACKAGE_INSTALL_DIRECTORY fbe-c)
  set(CPACK_PACKAGING_INSTALL_PREFIX /usr)
  set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
  set(CPACK_DEBIAN_PACKAGE_SECTION devel)
  # Run-time libraries from the binaries (dpkg-shlibdeps); the headers and
  # libraries the CMake package links against come from the -dev packages.
  set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)
  set(deps "")
  if(FBE_WITH_LLVM)
    list(APPEND deps "llvm-${LLVM_VERSION_MAJOR}-dev")
  endif()
  if(FBE_WITH_JSON)
    list(APPEND deps "libsimdjson-dev")
  endif()
  list(JOIN deps ", " CPACK_DEBIAN_PACKAGE_DEPENDS)
  include(CPack)
endif()
