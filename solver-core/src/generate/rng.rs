//! Seeded randomness: per-puzzle seeds, and draws whose values never change with a `rand` upgrade.
//!
//! A seed is a promise to users (the same seed gives the same puzzles), so the generator is a
//! named algorithm (xoshiro256++, seeded by SplitMix64) and the draws below are ours: `rand`'s
//! own range and shuffle helpers may change their values between versions.

use rand::rngs::Xoshiro256PlusPlus;
use rand::{Rng as _, SeedableRng};

/// The seed of the puzzle after the one seeded `seed` in a request: a SplitMix64 step, a
/// bijection on `u64`, so a request is the chain `seed, next(seed), next(next(seed)), ...` and
/// asking again with any puzzle's seed regenerates it first and the rest of the chain after it.
pub fn next_seed(seed: u64) -> u64 {
    let mut z = seed.wrapping_add(0x9E37_79B9_7F4A_7C15);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

/// The random stream behind one puzzle.
pub(crate) struct Random(Xoshiro256PlusPlus);

impl Random {
    pub(crate) fn new(seed: u64) -> Random {
        Random(Xoshiro256PlusPlus::seed_from_u64(seed))
    }

    /// A uniform draw from `0..n` (`n > 0`), by multiply-and-reject (Lemire).
    pub(crate) fn below(&mut self, n: usize) -> usize {
        debug_assert!(n > 0);
        let n = n as u64;
        let threshold = n.wrapping_neg() % n;
        loop {
            let wide = u128::from(self.0.next_u64()) * u128::from(n);
            if (wide as u64) >= threshold {
                return (wide >> 64) as usize;
            }
        }
    }

    /// Fisher-Yates shuffle.
    pub(crate) fn shuffle<T>(&mut self, items: &mut [T]) {
        for i in (1..items.len()).rev() {
            items.swap(i, self.below(i + 1));
        }
    }

    /// A uniformly chosen set bit of a non-zero mask.
    pub(crate) fn pick_bit(&mut self, mask: u64) -> u32 {
        let mut k = self.below(mask.count_ones() as usize);
        let mut m = mask;
        while k > 0 {
            m &= m - 1;
            k -= 1;
        }
        m.trailing_zeros()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn below_stays_in_range_and_hits_every_value() {
        let mut rng = Random::new(7);
        let mut seen = [0usize; 6];
        for _ in 0..6000 {
            seen[rng.below(6)] += 1;
        }
        assert!(seen.iter().all(|&n| (800..1200).contains(&n)), "{seen:?}");
    }

    #[test]
    fn shuffle_is_a_permutation_fixed_by_the_seed() {
        let run = |seed| {
            let mut v: Vec<usize> = (0..50).collect();
            Random::new(seed).shuffle(&mut v);
            v
        };
        let mut sorted = run(1);
        assert_eq!(run(1), sorted);
        assert_ne!(run(2), sorted);
        sorted.sort_unstable();
        assert_eq!(sorted, (0..50).collect::<Vec<_>>());
    }

    #[test]
    fn seed_chain_does_not_repeat_early() {
        let mut seeds = vec![42u64];
        for _ in 0..1000 {
            seeds.push(next_seed(*seeds.last().expect("non-empty")));
        }
        seeds.sort_unstable();
        seeds.dedup();
        assert_eq!(seeds.len(), 1001);
    }

    #[test]
    fn pick_bit_picks_only_set_bits() {
        let mut rng = Random::new(3);
        for _ in 0..200 {
            let bit = rng.pick_bit(0b1010_0100);
            assert!([2, 5, 7].contains(&bit));
        }
    }
}
