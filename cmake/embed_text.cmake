# cmake -DIN=FILE -DOUT=FILE.cpp -DNAME=ident -P embed_text.cmake
# Writes a C++ source that holds FILE's text as sprof::analyze::html::NAME,
# as bytes (no escaping to get wrong, whatever the text holds).
file(READ "${IN}" hex HEX)
string(REGEX REPLACE "([0-9a-f][0-9a-f])" "'\\\\x\\1'," bytes "${hex}")
file(WRITE "${OUT}.tmp"
  "// Generated from ${IN} at build time; do not edit.\n"
  "#include \"html_assets.hpp\"\n"
  "namespace sprof::analyze::html {\n"
  "static const char bytes[] = {${bytes}};\n"
  "const std::string_view ${NAME}(bytes, sizeof bytes);\n"
  "}  // namespace sprof::analyze::html\n")
file(COPY_FILE "${OUT}.tmp" "${OUT}" ONLY_IF_DIFFERENT)
file(REMOVE "${OUT}.tmp")
