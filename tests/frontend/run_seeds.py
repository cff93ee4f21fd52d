"""More seeds of the front-end's random-program generators than CI runs, by hand:

    python tests/frontend/run_seeds.py fuzzgen 7000000 600
    python tests/frontend/run_seeds.py fuzzgen2 7000000 600
    python tests/frontend/run_seeds.py leavegen 7000000 600

Each seed's program runs on each input in PYNATIVE and GRAPH mode through the same
check as the CI test (test_fuzz_equivalence, test_fuzz2_equivalence,
test_leaving_paths); prints the count and every failing seed with its reason.
"""
import os
import sys
import tempfile
import warnings

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path[:0] = [HERE, os.path.dirname(HERE)]

import test_fuzz2_equivalence   # noqa: E402
import test_fuzz_equivalence    # noqa: E402
import test_leaving_paths       # noqa: E402

CHECKS = {"fuzzgen": test_fuzz_equivalence.check_program,
          "fuzzgen2": test_fuzz2_equivalence.check_program,
          "leavegen": test_leaving_paths.check_program}


def main(argv):
    if len(argv) != 3 or argv[0] not in CHECKS:
        sys.exit(f"usage: run_seeds.py {{{','.join(CHECKS)}}} FIRST_SEED COUNT")
    name, first, count = argv[0], int(argv[1]), int(argv[2])
    warnings.simplefilter("ignore")
    failed = []
    with tempfile.TemporaryDirectory() as tmp:
        for seed in range(first, first + count):
            try:
                CHECKS[name](seed, tmp)
            except Exception as e:      # a mismatch or a refusal: report it, go on
                failed.append((seed, f"{type(e).__name__}: {str(e).splitlines()[0][:200]}"))
    print(f"{name}: seeds {first}..{first + count - 1}: {count - len(failed)} agree, "
          f"{len(failed)} failed")
    for seed, why in failed:
        print(f"  seed {seed}: {why}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
