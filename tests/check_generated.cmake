# Fails when COMMITTED is not what GENERATOR prints, saying how to regenerate.
# Usage: cmake -DGENERATOR=prog -DCOMMITTED=file -DREGENERATE="how" -P check_generated.cmake
execute_process(COMMAND ${GENERATOR} OUTPUT_VARIABLE printed RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "${GENERATOR} failed (exit ${rc})")
endif()
if(NOT EXISTS ${COMMITTED})
  message(FATAL_ERROR "${COMMITTED} is missing; create it with: ${REGENERATE}")
endif()
file(READ ${COMMITTED} committed)
if(NOT printed STREQUAL committed)
  message(FATAL_ERROR "${COMMITTED} differs from what ${GENERATOR} prints; regenerate it with: ${REGENERATE}")
endif()
