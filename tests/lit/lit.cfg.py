# lit configuration for the mqss CLI tests: every *.mlir / *.test file here
# is a test; RUN lines see %mqss, %examples, FileCheck and not on the PATH.
import os
import lit.formats

config.name = "mqss"
config.test_format = lit.formats.ShTest(execute_external=False)
config.suffixes = [".mlir", ".test"]
config.excludes = ["Inputs"]
config.test_source_root = os.path.dirname(__file__)
config.test_exec_root = os.path.join(config.mqss_bin_dir, "tests", "lit")

config.environment["PATH"] = os.pathsep.join(
    [config.mqss_bin_dir, config.llvm_tools_dir, config.environment.get("PATH", "")])
for var in ("ASAN_OPTIONS", "UBSAN_OPTIONS", "LSAN_OPTIONS"):
    if var in os.environ:
        config.environment[var] = os.environ[var]

if config.sanitized:
    config.available_features.add("sanitizer")

config.substitutions.append(("%mqss", os.path.join(config.mqss_bin_dir, "mqss")))
config.substitutions.append(("%plugin", os.path.join(config.mqss_bin_dir, "libmqss-plugin.so")))
config.substitutions.append(("%policy", os.path.join(config.mqss_source_dir, "models", "default.safetensors")))
config.substitutions.append(("%examples", os.path.join(config.mqss_source_dir, "examples")))
config.substitutions.append(("%runner_libs",
    "/usr/lib/llvm-19/lib/libmlir_runner_utils.so,/usr/lib/llvm-19/lib/libmlir_c_runner_utils.so"))
