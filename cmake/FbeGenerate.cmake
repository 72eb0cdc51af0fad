# fbe_generate(TARGET t SCHEMAS a.fbe ... [IMPORT_DIRS dir ...] [BACKEND aot|c|header]
#              [CPU name] [OUTPUT_DIR dir])
#
# Runs fbec at build time for each schema and adds what it writes to target t:
#   BACKEND c       (default) <package>.c, the static C codec, and <package>.h
#   BACKEND aot     <package>.o, native code compiled by LLVM (CPU: fbec aot --cpu),
#                   and <package>.h
#   BACKEND header  <package>.h only (for programs that load the schema at run time)
# plus the header of every imported package in OUTPUT_DIR/fbe_imports (a package
# generated here as well is found first, in OUTPUT_DIR). OUTPUT_DIR (default
# CMAKE_CURRENT_BINARY_DIR) and its fbe_imports go on t's include path and
# fbe::runtime is linked. fbec writes a depfile listing every schema it read, so
# editing an imported schema re-runs it. Call it where t is defined.
#
# fbec is the one built in the same tree (add_subdirectory), else the package's
# (find_package(fbe-c)), else FBE_FBEC_EXECUTABLE or the fbec found on PATH.
include_guard(GLOBAL)

function(_fbe_generate_fbec out_cmd out_dep)
  get_property(target GLOBAL PROPERTY FBE_FBEC_TARGET)
  get_property(exe GLOBAL PROPERTY FBE_FBEC_EXECUTABLE)
  if(FBE_FBEC_EXECUTABLE)
    set(${out_cmd} "${FBE_FBEC_EXECUTABLE}" PARENT_SCOPE)
    set(${out_dep} "${FBE_FBEC_EXECUTABLE}" PARENT_SCOPE)
  elseif(target AND TARGET ${target})
    set(${out_cmd} "$<TARGET_FILE:${target}>" PARENT_SCOPE)
    set(${out_dep} ${target} PARENT_SCOPE)
  elseif(exe)
    set(${out_cmd} "${exe}" PARENT_SCOPE)
    set(${out_dep} "${exe}" PARENT_SCOPE)
  else()
    find_program(FBE_FBEC_EXECUTABLE fbec)
    if(NOT FBE_FBEC_EXECUTABLE)
      message(FATAL_ERROR "fbe_generate: fbec not found; set FBE_FBEC_EXECUTABLE")
    endif()
    set(${out_cmd} "${FBE_FBEC_EXECUTABLE}" PARENT_SCOPE)
    set(${out_dep} "${FBE_FBEC_EXECUTABLE}" PARENT_SCOPE)
  endif()
endfunction()

function(fbe_generate)
  cmake_parse_arguments(PARSE_ARGV 0 arg "" "TARGET;BACKEND;CPU;OUTPUT_DIR" "SCHEMAS;IMPORT_DIRS")
  if(arg_UNPARSED_ARGUMENTS)
    message(FATAL_ERROR "fbe_generate: unexpected arguments: ${arg_UNPARSED_ARGUMENTS}")
  endif()
  if(NOT arg_TARGET OR NOT TARGET ${arg_TARGET})
    message(FATAL_ERROR "fbe_generate: TARGET must name an existing target (got '${arg_TARGET}')")
  endif()
  if(NOT arg_SCHEMAS)
    message(FATAL_ERROR "fbe_generate: no SCHEMAS given")
  endif()
  get_target_property(target_dir ${arg_TARGET} SOURCE_DIR)
  if(NOT target_dir STREQUAL CMAKE_CURRENT_SOURCE_DIR)
    message(FATAL_ERROR "fbe_generate: call it in the directory that defines ${arg_TARGET} (${target_dir})")
  endif()
  if(NOT arg_BACKEND)
    set(arg_BACKEND c)
  endif()
  if(NOT arg_BACKEND MATCHES "^(aot|c|header)$")
    message(FATAL_ERROR "fbe_generate: BACKEND must be aot, c or header (got '${arg_BACKEND}')")
  endif()
  if(arg_CPU AND NOT arg_BACKEND STREQUAL "aot")
    message(FATAL_ERROR "fbe_generate: CPU applies to BACKEND aot only")
  endif()
  if(NOT arg_OUTPUT_DIR)
    set(arg_OUTPUT_DIR ${CMAKE_CURRENT_BINARY_DIR})
  endif()
  cmake_path(ABSOLUTE_PATH arg_OUTPUT_DIR BASE_DIRECTORY ${CMAKE_CURRENT_BINARY_DIR} NORMALIZE)
  set(out ${arg_OUTPUT_DIR})
  set(imports ${out}/fbe_imports)
  file(MAKE_DIRECTORY ${out})

  _fbe_generate_fbec(fbec fbec_dep)
  set(include_args "")
  foreach(dir IN LISTS arg_IMPORT_DIRS)
    cmake_path(ABSOLUTE_PATH dir BASE_DIRECTORY ${CMAKE_CURRENT_SOURCE_DIR} NORMALIZE)
    list(APPEND include_args -I ${dir})
  endforeach()

  foreach(schema IN LISTS arg_SCHEMAS)
    cmake_path(ABSOLUTE_PATH schema BASE_DIRECTORY ${CMAKE_CURRENT_SOURCE_DIR} NORMALIZE)
    if(NOT EXISTS ${schema})
      message(FATAL_ERROR "fbe_generate: schema not found: ${schema}")
    endif()
    # The outputs are named after the package; a changed package line reconfigures.
    file(STRINGS ${schema} package_line REGEX "^[ \t]*package[ \t]+[A-Za-z_][A-Za-z0-9_.]*" LIMIT_COUNT 1)
    string(REGEX REPLACE "^[ \t]*package[ \t]+([A-Za-z_][A-Za-z0-9_.]*).*" "\\1" package "${package_line}")
    if(NOT package)
      message(FATAL_ERROR "fbe_generate: no 'package NAME' line in ${schema}")
    endif()
    set_property(DIRECTORY APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS ${schema})

    set(header ${out}/${package}.h)
    if(arg_BACKEND STREQUAL "header")
      set(primary ${header})
      set(command header ${include_args} ${schema} -o ${header})
      set(outputs ${header})
    else()
      if(arg_BACKEND STREQUAL "aot")
        set(primary ${out}/${package}.o)
        set(command aot ${include_args} ${schema} -o ${primary} --header ${header})
        if(arg_CPU)
          list(APPEND command --cpu ${arg_CPU})
        endif()
        set_source_files_properties(${primary} PROPERTIES EXTERNAL_OBJECT TRUE GENERATED TRUE)
      else()
        set(primary ${out}/${package}.c)
        set(command c ${include_args} ${schema} -o ${primary} --header ${header})
      endif()
      set(outputs ${primary} ${header})
    endif()
    add_custom_command(
      OUTPUT ${outputs}
      COMMAND ${fbec} ${command} --import-headers ${imports} -MF ${primary}.d
      DEPENDS ${schema} ${fbec_dep}
      DEPFILE ${primary}.d
      COMMENT "fbec ${arg_BACKEND}: ${package} (${schema})"
      VERBATIM)
    target_sources(${arg_TARGET} PRIVATE ${outputs})
  endforeach()
  target_include_directories(${arg_TARGET} PUBLIC ${out} ${imports})
  target_link_libraries(${arg_TARGET} PUBLIC fbe::runtime)
endfunction()
