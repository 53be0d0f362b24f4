# Included by the top-level CMakeLists.txt before any target when SPROF_FUZZ
# is on: the whole reader and analyzer are built with AddressSanitizer,
# UndefinedBehaviorSanitizer (every finding fatal) and libFuzzer's coverage
# instrumentation, so the fuzzer sees their branches and their bugs.
if(NOT CMAKE_CXX_COMPILER_ID STREQUAL "Clang")
  message(FATAL_ERROR "SPROF_FUZZ needs clang: -DCMAKE_CXX_COMPILER=clang++ -DCMAKE_C_COMPILER=clang (fuzz/run does this)")
endif()
add_compile_options(-fsanitize=fuzzer-no-link,address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer)
add_link_options(-fsanitize=address,undefined)
