"""unity_names finds a clash between two files of one target, wherever in the
target's tree they lie, and none between files of different targets."""
import os
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import unity_names  # noqa: E402

LOCAL_F = "namespace hpo {\nnamespace {\n\nint twice(int x) { return 2 * x; }\n\n}  // namespace\n}  // namespace hpo\n"


def clashes(files):
    with tempfile.TemporaryDirectory() as root:
        for path, text in files.items():
            os.makedirs(os.path.join(root, os.path.dirname(path)), exist_ok=True)
            with open(os.path.join(root, path), "w") as f:
                f.write(text)
        return unity_names.collisions(root, [f for f in files if f.endswith(".cc")])


def main():
    # One library, one of its files in a subdirectory (samplers/kernels/).
    found = clashes({"samplers/CMakeLists.txt": "add_library(s STATIC\n  a.cc\n  kernels/b.cc\n)\n",
                     "samplers/a.cc": LOCAL_F, "samplers/kernels/b.cc": LOCAL_F})
    assert len(found) == 1 and "samplers/a.cc, samplers/kernels/b.cc" in found[0], found
    # A globbed test binary and a helper executable beside it: different targets.
    found = clashes({"tests/CMakeLists.txt":
                     "file(GLOB T CONFIGURE_DEPENDS ${CMAKE_CURRENT_SOURCE_DIR}/unit/*_test.cc)\n"
                     "add_executable(unit unit/main.cc ${T})\n"
                     "add_executable(helper unit/helper.cc)\n",
                     "tests/unit/main.cc": "", "tests/unit/x_test.cc": LOCAL_F,
                     "tests/unit/helper.cc": LOCAL_F})
    assert found == [], found
    found = clashes({"tests/CMakeLists.txt":
                     "file(GLOB T CONFIGURE_DEPENDS ${CMAKE_CURRENT_SOURCE_DIR}/unit/*_test.cc)\n"
                     "add_executable(unit unit/main.cc ${T})\n",
                     "tests/unit/main.cc": "", "tests/unit/x_test.cc": LOCAL_F,
                     "tests/unit/y_test.cc": LOCAL_F})
    assert len(found) == 1 and "x_test.cc" in found[0] and "y_test.cc" in found[0], found
    # A source no target lists is named, not silently left unchecked.
    found = clashes({"samplers/CMakeLists.txt": "add_library(s STATIC\n  a.cc\n)\n",
                     "samplers/a.cc": LOCAL_F, "samplers/kernels/b.cc": LOCAL_F})
    assert len(found) == 1 and found[0].startswith("samplers/kernels/b.cc: in no target"), found
    print("unity_names: 4 cases ok")


if __name__ == "__main__":
    main()
