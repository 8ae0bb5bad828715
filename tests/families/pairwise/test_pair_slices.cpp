// The host's choice of source slices (pair_slices.hpp): eight waves of what
// the GPU holds, two tiles a slice at least, 32 at most.
#include <initializer_list>

#include <doctest/doctest.h>

#include "gpen/families/pairwise/pair_slices.hpp"

using namespace gpen;

TEST_CASE("host slices make eight waves of blocks") {
  // Yukawa at 2^16 (128 blocks of 512 targets, 256 tiles, 4 blocks an SM):
  // 8 x 528 / 128 = 33 slices wanted, 32 taken.
  CHECK(host_slices({128, 256, 528}) == 32);
  // Groups of 512 (1024 chunks of 256 targets, 7 blocks an SM): 8.
  CHECK(host_slices({1024, 192, 924}) == 8);
  // gpen run's random groups (3277 blocks, 16 tiles on average): 3.
  CHECK(host_slices({3277, 16, 924}) == 3);
  // Blocks that make eight waves alone keep one slice.
  CHECK(host_slices({8192, 8192, 528}) == 1);
}

TEST_CASE("host slices keep two tiles a slice and 32 slices at most") {
  CHECK(host_slices({1, 1, 528}) == 1);
  CHECK(host_slices({1, 3, 528}) == 1);
  CHECK(host_slices({1, 16, 528}) == 8);
  CHECK(host_slices({1, 1e9, 528}) == 32);
  CHECK(host_slices({0, 0, 0}) == 1);
  CHECK(most_host_slices(1, 100000) == 32);
  CHECK(most_host_slices(1 << 20, 528) == 1);
  // prepare() reserves most_host_slices for the blocks of the targets
  // alone; a launch (grouped: more blocks, a group's chunks each) never takes more.
  for (long long blocks = 1; blocks < 5000; blocks += 37)
    for (long long more : {0LL, 1LL, 100LL, 4000LL})
      for (double tiles : {1.0, 7.0, 64.0, 1e6}) {
        const long long s = host_slices({blocks + more, tiles, 924});
        REQUIRE(s >= 1);
        REQUIRE(s <= most_host_slices(blocks, 924));
      }
}
