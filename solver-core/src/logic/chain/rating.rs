//! SE's ratings for the chain family: a base per technique plus a bonus for length.

/// VWXYZ-Wing, before the bonus for its cells' sizes.
pub(crate) const VWXYZ: u16 = 62;
/// Aligned pair exclusion.
pub(crate) const ALIGNED_PAIR: u16 = 62;
/// Bidirectional X- or Y-cycle.
pub(crate) const CYCLE: u16 = 65;
/// Forcing X-chain or Y-chain (one kind of strong link).
pub(crate) const FORCING_X: u16 = 66;
/// Forcing chain mixing cell and house links.
pub(crate) const FORCING_XY: u16 = 70;
/// Aligned triplet exclusion.
pub(crate) const ALIGNED_TRIPLE: u16 = 75;
/// Nishio forcing chains: one digit assumed in a cell leaves a house without that digit.
pub(crate) const NISHIO: u16 = 75;
/// Static cell, region and double-implication forcing chains.
pub(crate) const MULTIPLE: u16 = 80;
/// Dynamic forcing chains. (The calibration file puts SE's dynamic chains at 8.5+, as in
/// Sudoku Explainer 1.2.1, not 8.0.)
pub(crate) const DYNAMIC: u16 = 85;
/// Dynamic forcing chains with locked candidates inside.
pub(crate) const PLUS: u16 = 90;
/// Nested forcing chains with static forcing chains inside (SE's nesting level 2); each
/// deeper level adds half a point, as SE's do: 10.0 with static multiple chains inside, 10.5
/// with dynamic chains inside, 11.0 with dynamic (+) chains inside.
pub(crate) const NESTED: u16 = 95;

/// SE's length bonus: +0.1 each time the length passes 4, 6, 8, 12, 16, 24, 32, ... (the
/// bound grows by 3/2 and 4/3 in turn).
pub(crate) fn length_bonus(length: usize) -> u16 {
    let (mut bonus, mut ceil, mut odd) = (0, 4usize, false);
    while length > ceil {
        bonus += 1;
        ceil = if odd { ceil * 4 / 3 } else { ceil * 3 / 2 };
        odd = !odd;
    }
    bonus
}

/// The rating of a chain of `nodes` facts on `base`.
pub(crate) fn rate(base: u16, nodes: usize) -> u16 {
    // SE counts the links of the chain, two fewer than its nodes here.
    base + length_bonus(nodes.saturating_sub(2))
}

/// SE's rating of a chain of `nodes` facts on `base`, as SE adds it up in floating point:
/// the sum decides between kinds whose ratings print alike.
pub(crate) fn difficulty(base: u16, nodes: usize) -> f64 {
    let mut added = 0.0;
    for _ in 0..length_bonus(nodes.saturating_sub(2)) {
        added += 0.1;
    }
    f64::from(base) / 10.0 + added
}

/// A [`difficulty`] in tenths.
pub(crate) fn tenths(difficulty: f64) -> u16 {
    (difficulty * 10.0).round() as u16
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bonus_steps_follow_se() {
        let steps: Vec<usize> = (0..300)
            .filter(|&n| length_bonus(n + 1) > length_bonus(n))
            .collect();
        assert_eq!(steps, [4, 6, 8, 12, 16, 24, 32, 48, 64, 96, 128, 192, 256]);
    }
}
