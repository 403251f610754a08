# cmake -DSOURCE=<source tree> -DINPUT=<git_describe.h.in> -DOUTPUT=<header> -P git_describe.cmake
# `git describe --always --dirty` of the source tree, or "unknown" when it is not a git
# checkout of its own (a tarball; a package built inside another repository). Run at
# every build; the header is rewritten only when the answer changes.
set(TW_GIT_DESCRIBE unknown)
find_program(GIT git)
if(GIT)
  execute_process(COMMAND ${GIT} -C ${SOURCE} rev-parse --show-toplevel
                  OUTPUT_VARIABLE top RESULT_VARIABLE rc OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET)
  if(rc EQUAL 0)
    file(REAL_PATH "${top}" top)
    file(REAL_PATH "${SOURCE}" source)
    if(top STREQUAL source)
      execute_process(COMMAND ${GIT} -C ${SOURCE} describe --always --dirty
                      OUTPUT_VARIABLE describe RESULT_VARIABLE rc OUTPUT_STRIP_TRAILING_WHITESPACE
                      ERROR_QUIET)
      if(rc EQUAL 0 AND describe MATCHES "^[A-Za-z0-9._+~/-]+$")
        set(TW_GIT_DESCRIBE "${describe}")
      endif()
    endif()
  endif()
endif()
configure_file(${INPUT} ${OUTPUT} @ONLY)
