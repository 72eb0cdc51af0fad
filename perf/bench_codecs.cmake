# The golden README schema (proto.fbe) as the two build-time backends, for the
# aot and static rows of fbe-op and bench_all:
#   fbe_bench_aot     `fbec aot` (LLVM, the baseline CPU a shipped object uses)
#   fbe_bench_static  `fbec c`, compiled with this build's C compiler and flags
#
# Both export the same symbols (by design: a program links either one without a
# source change), so the AOT object's codec constructor and image are renamed
# (fbe_bench_aot_proto_*) and its entry points made local; the static C codec
# keeps fbe_proto_codec_create.
set(FBE_BENCH_CODECS_DIR ${CMAKE_CURRENT_BINARY_DIR}/codecs)
set(FBE_BENCH_CODECS_SCHEMA ${FBE_SHARED_DIR}/golden/schemas/proto.fbe)

if(FBE_WITH_LLVM)
  find_program(FBE_OBJCOPY NAMES objcopy llvm-objcopy-19 REQUIRED)
  set(_raw ${FBE_BENCH_CODECS_DIR}/proto_aot_raw.o)
  set(_obj ${FBE_BENCH_CODECS_DIR}/proto_aot.o)
  add_custom_command(
    OUTPUT ${_obj}
    COMMAND ${CMAKE_COMMAND} -E make_directory ${FBE_BENCH_CODECS_DIR}
    COMMAND fbec aot ${FBE_BENCH_CODECS_SCHEMA} -o ${_raw}
    COMMAND ${FBE_OBJCOPY} --wildcard
            --localize-symbol=fbe_proto_*_std_* --localize-symbol=fbe_proto_*_final_*
            --redefine-sym fbe_proto_codec_create=fbe_bench_aot_proto_codec_create
            --redefine-sym fbe_proto_aot_image=fbe_bench_aot_proto_aot_image
            ${_raw} ${_obj}
    DEPENDS fbec ${FBE_BENCH_CODECS_SCHEMA}
    COMMENT "fbec aot proto.fbe (benchmark object)")
  add_library(fbe_bench_aot STATIC ${_obj})
  set_target_properties(fbe_bench_aot PROPERTIES LINKER_LANGUAGE C)
  target_link_libraries(fbe_bench_aot PUBLIC fbe_runtime)
endif()

set(_c ${FBE_BENCH_CODECS_DIR}/proto_static.c)
add_custom_command(
  OUTPUT ${_c}
  COMMAND ${CMAKE_COMMAND} -E make_directory ${FBE_BENCH_CODECS_DIR}
  COMMAND fbec c ${FBE_BENCH_CODECS_SCHEMA} -o ${_c}
  DEPENDS fbec ${FBE_BENCH_CODECS_SCHEMA}
  COMMENT "fbec c proto.fbe (benchmark codec)")
add_library(fbe_bench_static STATIC ${_c})
target_link_libraries(fbe_bench_static PUBLIC fbe_runtime)
target_compile_options(fbe_bench_static PRIVATE ${FBE_WARNINGS})
