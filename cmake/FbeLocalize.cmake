# Run at install time on each installed static library (cmake -P): only the
# public API (fbe_*) stays global. A static archive cannot hide a symbol that one
# of its objects calls in another, so the objects are first linked into one
# relocatable object (ld -r), where those calls are resolved, and every other
# global symbol is then made local (objcopy). Shared libraries get the same
# result from cmake/fbe.map. The libraries in the build tree are left as they
# are: the tests call internal functions.
#   cmake -DLIB=libfbe_x.a -DLD=ld -DOBJCOPY=objcopy -DAR=ar -P FbeLocalize.cmake
foreach(var LIB LD OBJCOPY AR)
  if(NOT ${var})
    message(FATAL_ERROR "FbeLocalize.cmake: ${var} is not set")
  endif()
endforeach()
if(NOT EXISTS "${LIB}")
  message(FATAL_ERROR "FbeLocalize.cmake: no library ${LIB}")
endif()
get_filename_component(name "${LIB}" NAME_WE)
set(tmp "${LIB}.localize")
file(REMOVE_RECURSE "${tmp}")
file(MAKE_DIRECTORY "${tmp}")
set(merged "${tmp}/${name}.o")
function(run what)
  execute_process(COMMAND ${ARGN} RESULT_VARIABLE rc ERROR_VARIABLE err OUTPUT_VARIABLE out)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "FbeLocalize.cmake: ${what} failed for ${LIB}: ${err}${out}")
  endif()
endfunction()
run("ld -r" "${LD}" -r -o "${merged}" --whole-archive "${LIB}")
run("objcopy" "${OBJCOPY}" --wildcard "--keep-global-symbol=fbe_*" "${merged}")
file(REMOVE "${LIB}")
run("ar" "${AR}" qcs "${LIB}" "${merged}")
file(REMOVE_RECURSE "${tmp}")
