# cmake -DIN=<file> -DOUT=<header> -DNAME=<identifier> -P embed_text.cmake
# Writes <header> declaring `static const char NAME[]` with the text of <file> (PTX for the runner).
file(READ "${IN}" text)
file(WRITE "${OUT}.tmp" "// Generated from ${IN} by embed_text.cmake; do not edit.\n#pragma once\nstatic const char ${NAME}[] = R\"KLEMBED(${text})KLEMBED\";\n")
file(RENAME "${OUT}.tmp" "${OUT}")
