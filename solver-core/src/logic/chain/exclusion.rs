//! Aligned pair exclusion: two cells that see each other cannot take a pair of digits that
//! would empty a common peer (a cell holding only those digits) or repeat a digit.

use std::cell::Cell;
use std::thread::LocalKey;

use super::deduction::{self, Deduction};
use super::rating;
use super::state::{FULL, Set, Start, cells, tables};

/// A board as the exclusions read it: each cell's digits, and the open cells.
#[derive(Clone, Copy)]
struct Board {
    digits: [u16; 81],
    open: Set,
}

impl Board {
    fn of(s: &Start) -> Board {
        Board {
            digits: std::array::from_fn(|c| s.digits(c)),
            open: s.open(),
        }
    }
}

/// The board a search last found nothing on. A pair or triple is told only by its cells'
/// digits and those of its common peers: where none of them changed since, it finds nothing
/// again and is passed over (hard puzzles run these searches at every step, and a step
/// changes few cells).
type NothingOn = LocalKey<Cell<Option<Board>>>;

thread_local! {
    static PAIRS_FOUND_NOTHING: Cell<Option<Board>> = const { Cell::new(None) };
    static TRIPLES_FOUND_NOTHING: Cell<Option<Board>> = const { Cell::new(None) };
}

/// The open cells whose digits differ from the board `memo` last found nothing on; every
/// cell when there is none, or when a cell open now was not then (another board).
///
/// Cells solved since are left out: a cell leaves the pairs and triples when solved, and a
/// common peer solved drops out of the peers that empty a combination, which excludes nothing
/// new (its digit left its open peers, which count as changed).
fn changed_since(memo: &'static NothingOn, now: &Board) -> Set {
    let Some(then) = memo.try_with(Cell::get).ok().flatten() else {
        return FULL;
    };
    if now.open & !then.open != 0 {
        return FULL;
    }
    cells(now.open)
        .filter(|&c| then.digits[c] != now.digits[c])
        .fold(0, |m, c| m | 1 << c)
}

/// Records the board a search ran on when it found nothing (else forgets).
fn remember<T>(memo: &'static NothingOn, now: &Board, found: &Option<T>) {
    let _ = memo.try_with(|m| m.set(found.is_none().then_some(*now)));
}

/// SE's name.
const NAME: &str = "Aligned pair exclusion";

/// The first aligned pair exclusion on the board.
pub(crate) fn aligned_pair(s: &Start) -> Option<Deduction> {
    let now = Board::of(s);
    let changed = changed_since(&PAIRS_FOUND_NOTHING, &now);
    // Only bivalue common peers pair digits (see `pair`).
    let changed = Changed {
        cells: changed,
        peers: changed & s.bivalue,
    };
    let found = first_pair(s, changed);
    remember(&PAIRS_FOUND_NOTHING, &now, &found);
    found
}

/// The cells changed since a search found nothing, by the part they may play: as a cell of
/// a pair or triple (`cells`), or as a common peer (`peers`: those of them whose digits can
/// empty a combination now, the others excluding nothing then or now).
#[derive(Clone, Copy)]
struct Changed {
    cells: Set,
    peers: Set,
}

/// The cells `b` such that some change bears on the pair `a`, `b`: `a` or `b` itself, or a
/// common peer. Found once per `a` through the changed peers of `a`, not asked pair by pair
/// (the pairs are many, the changed peers few).
fn bearing(a: usize, changed: Changed) -> Set {
    if changed.cells >> a & 1 != 0 {
        return FULL;
    }
    let t = tables();
    cells(t.peers[a] & changed.peers).fold(changed.cells, |m, c| m | t.peers[c])
}

/// [`aligned_pair`] over the pairs that some change bears on.
fn first_pair(s: &Start, changed: Changed) -> Option<Deduction> {
    let t = tables();
    let open = s.open();
    let bivalue: Set = cells(open)
        .filter(|&c| s.digits(c).count_ones() == 2)
        .fold(0, |m, c| m | 1 << c);
    // Cells of one digit or none, which pair without a bivalue peer.
    let tiny: Set = cells(open)
        .filter(|&c| s.digits(c).count_ones() <= 1)
        .fold(0, |m, c| m | 1 << c);
    for a in cells(open) {
        let above = !((1u128 << (a + 1)) - 1);
        let ma = s.digits(a);
        // Two cells of two digits or more need a common bivalue peer (see `most` below): the
        // second sees one that the first sees.
        let mut seen = if ma.count_ones() <= 1 { FULL } else { tiny };
        let mut partners = [0u16; 9];
        for p in cells(t.peers[a] & bivalue) {
            seen |= t.peers[p];
            let m = s.digits(p);
            let (x, y) = (m.trailing_zeros() as usize, 15 - m.leading_zeros() as usize);
            partners[x] |= 1 << y;
            partners[y] |= 1 << x;
        }
        let goes = Goes::of(ma, &partners);
        for b in cells(open & above & bearing(a, changed) & seen) {
            if !goes.may(s.digits(b)) {
                continue;
            }
            if let Some(found) = pair(s, [a, b], open, bivalue) {
                return Some(found);
            }
        }
    }
    None
}

/// What a pair's removals need of its second cell, read off the partners of the first cell's
/// bivalue peers (a pair's common bivalue peers are some of these).
///
/// A digit `x` leaves the first cell only when the second holds no digit but `x` and its
/// partners, and a digit `y` leaves the second only when the first holds no digit but `y`
/// and its partners (see [`pair`]).
struct Goes {
    /// Each digit of the first cell with its partners (nothing for the other digits).
    first: [u16; 9],
    /// The digits that may leave a second cell.
    second: u16,
}

impl Goes {
    fn of(ma: u16, partners: &[u16; 9]) -> Goes {
        let mut first = [0u16; 9];
        let mut second = 0;
        for (d, &p) in partners.iter().enumerate() {
            let with = p | 1 << d;
            if ma >> d & 1 != 0 {
                first[d] = with;
            }
            if ma & !with == 0 {
                second |= 1 << d;
            }
        }
        Goes { first, second }
    }

    /// Whether the pair with a second cell of digits `mb` may remove anything.
    fn may(&self, mb: u16) -> bool {
        mb & self.second != 0 || self.first.iter().any(|&with| mb & !with == 0)
    }
}

/// The removals of the pair of cells `a`, `b` (`a` first) among the `open` cells, as a
/// deduction.
fn pair(s: &Start, [a, b]: [usize; 2], open: Set, bivalue: Set) -> Option<Deduction> {
    let t = tables();
    let sees = t.peers[a] >> b & 1 != 0;
    let common = t.peers[a] & t.peers[b] & open;
    if common.count_ones() < 2 {
        return None;
    }
    // A digit of one cell goes only when every digit of the other is its partner in
    // a common bivalue peer (or the same digit): one partner per such peer, so the
    // other cell must hold at most one digit more than there are such peers.
    let most = (common & bivalue).count_ones() + 1;
    let (na, nb) = (s.digits(a).count_ones(), s.digits(b).count_ones());
    if nb > most && na > most {
        return None;
    }
    // Peers of both cells with two candidates exclude exactly that pair: for each
    // digit, the digits it may not pair with.
    let mut partners = [0u16; 9];
    for m in cells(common & bivalue).map(|c| s.digits(c)) {
        let (x, y) = (m.trailing_zeros() as usize, 15 - m.leading_zeros() as usize);
        partners[x] |= 1 << y;
        partners[y] |= 1 << x;
    }
    // A digit stays while the other cell has a digit to pair it with (the same one
    // only when the cells do not see each other).
    let (ma, mb) = (s.digits(a), s.digits(b));
    // The digits that go from one cell, given the other's: told as masks by a bit loop (most
    // pairs remove nothing; the list is built only for those that do).
    let going = |mine: u16, theirs: u16| {
        let (mut xs, mut out) = (mine, 0u16);
        while xs != 0 {
            let x = xs.trailing_zeros() as usize;
            xs &= xs - 1;
            if theirs & !partners[x] & !(u16::from(sees) << x) == 0 {
                out |= 1 << x;
            }
        }
        out
    };
    let gone = [(a, going(ma, mb)), (b, going(mb, ma))];
    if gone[0].1 | gone[1].1 == 0 {
        return None;
    }
    let elims: Vec<(u16, u8)> = gone
        .iter()
        .flat_map(|&(cell, m)| bits9(m).map(move |x| (cell as u16, x as u8 + 1)))
        .collect();
    let mut found = Deduction::setting(NAME, rating::ALIGNED_PAIR, a, 0, false);
    found.say(|| {
        format!(
            "{NAME}: every pair of digits left for r{}c{} and r{}c{} would repeat a digit or empty a cell that sees both, so {}",
            a / 9 + 1,
            a % 9 + 1,
            b / 9 + 1,
            b % 9 + 1,
            deduction::removals(&elims)
        )
    });
    found.eliminations = elims;
    found.rest_on(|| {
        [a, b]
            .iter()
            .flat_map(|&c| bits9(s.digits(c)).map(move |d| (c as u16, d as u8 + 1)))
            .collect()
    });
    Some(found)
}

/// The digits each of three cells (`digits`) takes in some combination that repeats no digit
/// in two cells that see each other (`clash`: 0-1, 0-2, 1-2) and holds no peer's `masks` whole.
fn allowed_digits(digits: [u16; 3], clash: [bool; 3], masks: &[u16]) -> [u16; 3] {
    // Kept in one word (the cells at bits 0, 16 and 32), compared whole at every combination
    // found: not three words packed anew each time.
    let pack = |m: [u16; 3]| u64::from(m[0]) | u64::from(m[1]) << 16 | u64::from(m[2]) << 32;
    let whole = pack(digits);
    let mut allowed = 0u64;
    // Bit loops by hand, not through a pop returning an `Option`: fewer instructions at each
    // combination (most of the exclusions' time is spent here).
    let mut xs = digits[0];
    'x: while xs != 0 {
        let x = xs.trailing_zeros();
        xs &= xs - 1;
        let mut ys = digits[1] & !(u16::from(clash[0]) << x);
        while ys != 0 {
            // With the third cell's digits all allowed, and x, only a y not yet allowed can add
            // anything: the others are passed over (the result is the same).
            if allowed >> 32 == whole >> 32 && allowed >> x & 1 != 0 {
                ys &= !((allowed >> 16) as u16);
                if ys == 0 {
                    break;
                }
            }
            let y = ys.trailing_zeros();
            ys &= ys - 1;
            // The third digits that complete x and y: a peer's digits all among x, y and z
            // rule z out (all of them when x and y alone cover the peer).
            let xy = 1u16 << x | 1 << y;
            let mut zs = digits[2] & !(u16::from(clash[1]) << x) & !(u16::from(clash[2]) << y);
            for &m in masks {
                let rest = m & !xy;
                if rest & rest.wrapping_sub(1) == 0 {
                    zs &= !rest;
                    if rest == 0 {
                        zs = 0;
                    }
                }
            }
            if zs != 0 {
                allowed |= 1 << x | 1 << (16 + y) | u64::from(zs) << 32;
                if allowed == whole {
                    break 'x;
                }
            }
        }
    }
    [0, 16, 32].map(|shift| (allowed >> shift) as u16)
}

/// Whether every digit of the three cells (`digits`, `clash` as [`allowed_digits`] takes
/// them) is allowed for a plain reason, told by counting: most triples are so, without
/// trying combinations. `pairs_left`: whether the board may hold a naked pair with
/// eliminations (see [`naked_pair_left`]).
///
/// Call the digits in no peer's `masks` free. A digit `x` of a cell in some mask is allowed
/// when another cell has a free digit `y` and the third a digit in no two-digit mask that
/// repeats neither `x` nor `y`: a peer emptied by x, y and z would hold no y, so it would be
/// x and z alone. A free `x` is allowed when another cell has a free digit that is not `x`
/// and the third any digit that repeats neither; or, without two-digit masks, by any
/// combination that repeats nothing (a peer would be y and z alone), which there is unless
/// the other two cells are a naked pair holding `x` that sees all three.
fn plainly_allowed(
    digits: [u16; 3],
    clash: [bool; 3],
    masks: impl IntoIterator<Item = u16>,
    pairs_left: bool,
) -> bool {
    let (mut two, mut wide) = (0u16, 0u16);
    for m in masks {
        // A peer of one digit empties with that digit alone.
        let rest = m & m.wrapping_sub(1);
        if rest == 0 {
            return false;
        }
        if rest & (rest - 1) == 0 {
            two |= m;
        } else {
            wide |= m;
        }
    }
    let used = two | wide;
    let free = digits.map(|m| (m & !used).count_ones());
    let unpaired = digits.map(|m| (m & !two).count_ones());
    let size = digits.map(u16::count_ones);
    let c = clash.map(u32::from);
    let repeats_nothing = two == 0 && !pairs_left;
    // Cell i with the other two, j and k, and the clashes i-j, i-k, j-k.
    let fits = |i: usize, j: usize, k: usize, ij: u32, ik: u32, jk: u32| {
        let used_ok = digits[i] & used == 0
            || free[j] >= 1 && unpaired[k] > ik + jk
            || free[k] >= 1 && unpaired[j] > ij + jk;
        let free_ok = repeats_nothing
            || digits[i] & !used == 0
            || free[j] > ij && size[k] > ik + jk
            || free[k] > ik && size[j] > ij + jk;
        used_ok && free_ok
    };
    fits(0, 1, 2, c[0], c[1], c[2])
        && fits(1, 0, 2, c[0], c[2], c[1])
        && fits(2, 0, 1, c[1], c[2], c[0])
}

/// Digit indices of a cell mask.
fn bits9(m: u16) -> impl Iterator<Item = usize> {
    (0..9).filter(move |d| m >> d & 1 != 0)
}

/// SE's name for three cells.
const TRIPLE: &str = "Aligned triplet exclusion";

/// The first aligned triplet exclusion: three cells with common peers, each of whose
/// candidates is in no combination of digits that the three cells could take together.
pub(crate) fn aligned_triple(s: &Start) -> Option<Deduction> {
    let now = Board::of(s);
    let changed = changed_since(&TRIPLES_FOUND_NOTHING, &now);
    let found = first_triple(s, &now, changed);
    remember(&TRIPLES_FOUND_NOTHING, &now, &found);
    found
}

/// [`aligned_triple`] over the triples that some cell of `changed` bears on.
fn first_triple(s: &Start, now: &Board, changed: Set) -> Option<Deduction> {
    let t = tables();
    let (open, digits) = (now.open, now.digits);
    let base_set: Set = cells(open)
        .filter(|&c| digits[c].count_ones() >= 2)
        .fold(0, |m, c| m | 1 << c);
    // Only common peers of at most three digits can exclude a combination, so a triple without
    // one has nothing to find: such triples are never built, as they would be most of the search.
    let small: Set = cells(open)
        .filter(|&c| digits[c].count_ones() <= 3)
        .fold(0, |m, c| m | 1 << c);
    let pairs_left = naked_pair_left(s);
    // The cells seeing a changed third cell: a pair nothing bears on needs such a common peer.
    let near_changed = cells(base_set & changed).fold(0, |m: Set, c| m | t.peers[c]);
    // Only common peers of at most three digits empty a combination.
    let changed = Changed {
        cells: changed,
        peers: changed & small,
    };
    for a in cells(base_set) {
        let bearing_a = bearing(a, changed);
        // The second cells that share such a peer with `a`; where nothing bears on the pair,
        // one that also sees a changed cell (a third is among those, see `near`).
        let seconds = cells(t.peers[a] & small).fold(0, |m: Set, p| m | t.peers[p]);
        let to_changed =
            cells(t.peers[a] & small & near_changed).fold(0, |m: Set, p| m | t.peers[p]);
        for b in cells(base_set & !((2u128 << a) - 1) & seconds & (bearing_a | to_changed)) {
            let ab = t.peers[a] & t.peers[b] & open;
            let ab_small = ab & small;
            let thirds = thirds(a, b, bearing_a, changed);
            let above = !((1u128 << (b + 1)) - 1);
            if ab_small == 0 || base_set & above & thirds == 0 {
                continue;
            }
            if !pairs_left && outside_wide_peers(&digits, [a, b], ab_small) {
                continue;
            }
            let near = near(s, &digits, ab_small, digits[a] | digits[b], pairs_left);
            for c in cells(base_set & above & near & thirds) {
                let common = ab & t.peers[c];
                if !pairs_left && !inside_wide_peers(&digits, [a, b, c], common & small) {
                    continue;
                }
                if let Some(found) = triple(s, &digits, [a, b, c], common & small, pairs_left) {
                    return Some(found);
                }
            }
        }
    }
    None
}

/// The third cells that a change since the search found nothing bears on, with `a` and `b`:
/// all when `a` or `b` changed; else the changed cells and those seeing a changed common peer
/// of the pair (a triple is told by its cells and their common peers). `bearing_a` is
/// [`bearing`] of `a`.
fn thirds(a: usize, b: usize, bearing_a: Set, changed: Changed) -> Set {
    if bearing_a >> b & 1 == 0 {
        return changed.cells;
    }
    if (changed.cells >> a | changed.cells >> b) & 1 != 0 {
        return FULL;
    }
    let t = tables();
    cells(t.peers[a] & t.peers[b] & changed.peers).fold(changed.cells, |m, q| m | t.peers[q])
}

/// Whether two of the three cells (`base`) hold only digits of their common peers of at most
/// three digits (`small`) that lie within the cells' digits, where all those peers have three
/// digits: else, with no naked pair with eliminations on the board, they exclude nothing.
/// True where one of them has two digits or fewer.
///
/// With peers of three digits only, a digit goes only when the other two cells hold digits of
/// the peers alone. A digit outside every peer goes by repeats alone (a naked pair): a peer
/// emptied with it would be the other two digits alone. A digit `x` of a peer stays where
/// another cell has a digit `y` outside them: the third cell has a digit that repeats neither
/// `x` nor `y` (a peer emptied with `y` in would be two digits), unless it holds just `x` and
/// `y` and sees both cells; then a second digit of the other cell, not `x`, takes `y` in the
/// third, unless that cell too is just `x` and `y` (a naked pair).
fn inside_wide_peers(digits: &[u16; 81], base: [usize; 3], small: Set) -> bool {
    let cells3 = base.map(|c| digits[c]);
    let union = cells3[0] | cells3[1] | cells3[2];
    let mut peers = 0;
    for m in cells(small).map(|p| digits[p]) {
        if m & !union == 0 {
            if m.count_ones() != 3 {
                return true;
            }
            peers |= m;
        }
    }
    let inside = cells3.map(|m| u8::from(m & !peers == 0));
    inside[0] + inside[1] + inside[2] >= 2
}

/// Whether the pair's common peers of at most three digits (`ab_small`) all have three, and
/// both cells hold a digit outside them: then no third cell makes two cells inside them (see
/// [`inside_wide_peers`]; a triple's peers are some of the pair's).
fn outside_wide_peers(digits: &[u16; 81], [a, b]: [usize; 2], ab_small: Set) -> bool {
    let mut wide = 0;
    for m in cells(ab_small).map(|p| digits[p]) {
        if m.count_ones() != 3 {
            return false;
        }
        wide |= m;
    }
    digits[a] & !wide != 0 && digits[b] & !wide != 0
}

/// The third cells for a pair of digits `ab` (both cells') and common peers of at most three
/// digits `ab_small`: those that see such a peer whose digits are all among the three cells'.
/// A triple without one excludes a digit only by repeats alone, that is, with a naked pair
/// that still has eliminations (`pairs_left`): then every cell seeing a peer is a third.
fn near(s: &Start, digits: &[u16; 81], ab_small: Set, ab: u16, pairs_left: bool) -> Set {
    let t = tables();
    cells(ab_small).fold(0, |m: Set, p| {
        let mut holding = t.peers[p];
        // The third cell must hold the peer's digits that the pair lacks.
        let mut need = if pairs_left { 0 } else { digits[p] & !ab };
        while need != 0 {
            holding &= s.cand[need.trailing_zeros() as usize];
            need &= need - 1;
        }
        m | holding
    })
}

/// Whether two cells of the same two digits see each other and a third cell that holds one
/// of them (a naked pair with eliminations).
///
/// Three cells exclude a digit `x` by repeats alone only so: the other two cells, seeing each
/// other and the first, must leave `x` one digit each, the same one.
fn naked_pair_left(s: &Start) -> bool {
    let t = tables();
    cells(s.bivalue).any(|j| {
        let m = s.digits(j);
        let (x, w) = (m.trailing_zeros() as usize, 15 - m.leading_zeros() as usize);
        let holders = s.cand[x] | s.cand[w];
        cells(s.bivalue & t.peers[j])
            .any(|k| s.digits(k) == m && t.peers[j] & t.peers[k] & holders != 0)
    })
}

/// The removals of one triple whose common peers of at most three digits are `small`, as a
/// deduction (`pairs_left` as [`plainly_allowed`] takes it).
fn triple(
    s: &Start,
    digits: &[u16; 81],
    base: [usize; 3],
    small: Set,
    pairs_left: bool,
) -> Option<Deduction> {
    let t = tables();
    let digits3 = base.map(|c| digits[c]);
    let union = digits3[0] | digits3[1] | digits3[2];
    // A peer's digits exclude a combination only when all of them are in it, so only peers
    // within the three cells' digits matter.
    let within = || {
        cells(small)
            .map(|c| digits[c])
            .filter(move |&m| m & !union == 0)
    };
    let sees = |i: usize, j: usize| t.peers[base[i]] >> base[j] & 1 != 0;
    let clash = [(0, 1), (0, 2), (1, 2)].map(|(i, j)| sees(i, j));
    if plainly_allowed(digits3, clash, within(), pairs_left) {
        return None;
    }
    // Two cells have at most 13 common peers (same row and box).
    let mut masks = [0u16; 16];
    let mut count = 0;
    for m in within() {
        masks[count] = m;
        count += 1;
    }
    let masks = &masks[..count];
    let digits = digits3;
    let allowed = allowed_digits(digits, clash, masks);
    // Nearly every triple removes nothing: told by the masks, before any list is built.
    if allowed == digits {
        return None;
    }
    let elims: Vec<(u16, u8)> = (0..3)
        .flat_map(|k| bits9(digits[k] & !allowed[k]).map(move |d| (base[k] as u16, d as u8 + 1)))
        .collect();
    if elims.is_empty() {
        return None;
    }
    let mut found = Deduction::setting(TRIPLE, rating::ALIGNED_TRIPLE, base[0], 0, false);
    found.say(|| {
        format!(
            "{TRIPLE}: every way to fill {} with one of these digits repeats a digit or empties a cell that sees all three, so {}",
            base.map(|c| format!("r{}c{}", c / 9 + 1, c % 9 + 1))
                .join(", "),
            deduction::removals(&elims)
        )
    });
    found.eliminations = elims;
    found.rest_on(|| {
        base.iter()
            .flat_map(|&c| bits9(s.digits(c)).map(move |d| (c as u16, d as u8 + 1)))
            .collect()
    });
    Some(found)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// [`allowed_digits`] by trying every combination of three digits.
    fn allowed_by_brute_force(digits: [u16; 3], clash: [bool; 3], masks: &[u16]) -> [u16; 3] {
        let mut allowed = [0u16; 3];
        for (x, y, z) in bits9(digits[0]).flat_map(|x| {
            bits9(digits[1]).flat_map(move |y| bits9(digits[2]).map(move |z| (x, y, z)))
        }) {
            let repeats = [(x, y), (x, z), (y, z)]
                .iter()
                .zip(clash)
                .any(|(&(i, j), c)| c && i == j);
            let taken = 1u16 << x | 1 << y | 1 << z;
            if !repeats && masks.iter().all(|&m| m & !taken != 0) {
                allowed[0] |= 1 << x;
                allowed[1] |= 1 << y;
                allowed[2] |= 1 << z;
            }
        }
        allowed
    }

    #[test]
    fn allowed_digits_match_every_combination_tried() {
        let mut seed = 0x2545_f491_4f6c_dd1du64;
        let mut next = |n: u64| {
            seed = seed.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1);
            (seed >> 33) % n
        };
        let mut excluded = 0;
        for _ in 0..20_000 {
            // Few digits, so that peers often rule combinations out.
            let mut digit_set = || (0..2 + next(3)).fold(0u16, |m, _| m | 1 << next(5));
            let digits = [digit_set(), digit_set(), digit_set()];
            let clash = [next(2) == 1, next(2) == 1, next(2) == 1];
            let masks: Vec<u16> = (0..next(5))
                .map(|_| (0..1 + next(3)).fold(0u16, |m, _| m | 1 << next(5)))
                .collect();
            let want = allowed_by_brute_force(digits, clash, &masks);
            excluded += usize::from(want != digits);
            assert_eq!(
                allowed_digits(digits, clash, &masks),
                want,
                "{digits:?} {clash:?} {masks:?}"
            );
        }
        assert!(excluded > 100);
    }

    /// Whether two of the three cells are a naked pair that sees the third, which holds one of
    /// its digits (a triple-sized [`naked_pair_left`]).
    fn naked_pair_within(digits: [u16; 3], clash: [bool; 3]) -> bool {
        // Each cell with the other two, and the clashes of the three pairs it makes.
        [
            (0, 1, 2, [0, 1, 2]),
            (1, 0, 2, [0, 2, 1]),
            (2, 0, 1, [1, 2, 0]),
        ]
        .iter()
        .any(|&(i, j, k, [ij, ik, jk])| {
            digits[j] == digits[k]
                && digits[j].count_ones() == 2
                && clash[ij]
                && clash[ik]
                && clash[jk]
                && digits[i] & digits[j] != 0
        })
    }

    #[test]
    fn plainly_allowed_triples_exclude_nothing() {
        let mut seed = 0x6a09_e667_f3bc_c908u64;
        let mut next = |n: u64| {
            seed = seed.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1);
            (seed >> 33) % n
        };
        let (mut plain, mut plain_without_pairs, mut excluded) = (0, 0, 0);
        for _ in 0..100_000 {
            let mut set = |least: u64| loop {
                let m = (0..least + next(3)).fold(0u16, |m, _| m | 1 << next(7));
                if m.count_ones() as u64 >= least {
                    break m;
                }
            };
            let digits = [set(2), set(2), set(2)];
            let masks: Vec<u16> = [set(2), set(3), set(2), set(1)][..(digits[0] % 5) as usize]
                .iter()
                .map(|&m| m & (digits[0] | digits[1] | digits[2]))
                .filter(|&m| m != 0)
                .collect();
            let clash = [digits[1] & 1 != 0, digits[2] & 1 != 0, digits[1] & 2 != 0];
            let excludes = allowed_by_brute_force(digits, clash, &masks) != digits;
            excluded += usize::from(excludes);
            if plainly_allowed(digits, clash, masks.iter().copied(), true) {
                plain += 1;
                assert!(!excludes, "{digits:?} {clash:?} {masks:?}");
            }
            let pairs = naked_pair_within(digits, clash);
            if plainly_allowed(digits, clash, masks.iter().copied(), pairs) {
                plain_without_pairs += 1;
                assert!(!excludes, "{digits:?} {clash:?} {masks:?} {pairs}");
            }
        }
        assert!(
            plain > 1000 && plain_without_pairs > plain + 1000 && excluded > 1000,
            "{plain} {plain_without_pairs} {excluded}"
        );
    }

    #[test]
    fn peers_of_three_digits_exclude_only_with_two_cells_inside_them() {
        let mut seed = 0xbb67_ae85_84ca_a73bu64;
        let mut next = |n: u64| {
            seed = seed.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1);
            (seed >> 33) % n
        };
        let (mut tried, mut excluded) = (0, 0);
        while tried < 50_000 {
            let mut set = |least: u64| loop {
                let m = (0..least + next(3)).fold(0u16, |m, _| m | 1 << next(6));
                if m.count_ones() >= 2 {
                    break m;
                }
            };
            let digits = [set(2), set(2), set(2)];
            let masks = [set(3), set(3), set(3)];
            let clash = [next(2) == 1, next(2) == 1, next(2) == 1];
            let union = digits[0] | digits[1] | digits[2];
            // One to three peers of three digits within the cells' digits.
            let masks: Vec<u16> = masks[..1 + (digits[1] % 3) as usize]
                .iter()
                .copied()
                .filter(|&m| m.count_ones() == 3 && m & !union == 0)
                .collect();
            if masks.is_empty() || naked_pair_within(digits, clash) {
                continue;
            }
            tried += 1;
            let peers = masks.iter().fold(0, |u, &m| u | m);
            let inside = digits.iter().filter(|&&m| m & !peers == 0).count();
            if allowed_by_brute_force(digits, clash, &masks) != digits {
                excluded += 1;
                assert!(inside >= 2, "{digits:?} {clash:?} {masks:?}");
            }
        }
        assert!(excluded > 300, "{excluded}");
    }

    /// The first triple of cells (in cell order) with a removal, each triple with a common
    /// peer of at most three digits (the triples the search takes) tried in full.
    fn first_triple_of_all(s: &Start) -> Option<Deduction> {
        let t = tables();
        let now = Board::of(s);
        let base: Vec<usize> = cells(now.open)
            .filter(|&c| now.digits[c].count_ones() >= 2)
            .collect();
        let small: Set = cells(now.open)
            .filter(|&c| now.digits[c].count_ones() <= 3)
            .fold(0, |m, c| m | 1 << c);
        for (i, &a) in base.iter().enumerate() {
            for (j, &b) in base.iter().enumerate().skip(i + 1) {
                for &c in &base[j + 1..] {
                    let common = t.peers[a] & t.peers[b] & t.peers[c] & small;
                    // `true`: no naked pair taken for granted.
                    let found = (common != 0)
                        .then(|| triple(s, &now.digits, [a, b, c], common, true))
                        .flatten();
                    if let Some(found) = found {
                        return Some(found);
                    }
                }
            }
        }
        None
    }

    /// Solves that meet aligned triplets (SE 7.5).
    const TRIPLETS: [&str; 4] = [
        "......2..2..8....37..9.185.....59.4...6...7...5.76.....621.3..71....5..2..8......",
        "....578.........2.53.9..47.7...93...4...1...9...54...8.94..1.62.6.........562....",
        "...3..8..7...5..4........92..364.9....78.56....6.175..89........3..9...1..5..3...",
        "..5...2...8.7.6.9....8.5.......8.....7.2.9.4...26.49..6.8...4.3..7.4.6..3..9.7..1",
    ];

    /// The first pair of cells (in cell order) with a removal, each pair tried.
    fn first_pair_of_all(s: &Start) -> Option<Deduction> {
        let open = s.open();
        cells(open).find_map(|a| {
            cells(open & !((2u128 << a) - 1)).find_map(|b| pair(s, [a, b], open, s.bivalue))
        })
    }

    #[test]
    fn pairs_found_are_the_first_of_all_pairs() {
        // Board by board: searches after one that found nothing, and fresh ones.
        let (mut boards, mut met) = (0, 0);
        for puzzle in TRIPLETS {
            super::super::super::engine::each_board(puzzle, |b| {
                let s = Start::new(super::super::State::from_board(b));
                let all = format!("{:?}", first_pair_of_all(&s));
                boards += 1;
                met += usize::from(all != "None");
                assert_eq!(format!("{:?}", aligned_pair(&s)), all);
                let full = Changed {
                    cells: FULL,
                    peers: FULL,
                };
                assert_eq!(format!("{:?}", first_pair(&s, full)), all);
            });
        }
        assert!(
            boards > 150 && met > 10,
            "{boards} boards, {met} with pairs"
        );
    }

    #[test]
    fn triples_found_are_the_first_of_all_triples() {
        // Board by board: searches after one that found nothing, and fresh ones.
        let (mut boards, mut met) = (0, 0);
        for puzzle in TRIPLETS {
            super::super::super::engine::each_board(puzzle, |b| {
                let s = Start::new(super::super::State::from_board(b));
                let all = format!("{:?}", first_triple_of_all(&s));
                boards += 1;
                met += usize::from(all != "None");
                assert_eq!(format!("{:?}", aligned_triple(&s)), all);
                let fresh = first_triple(&s, &Board::of(&s), FULL);
                assert_eq!(format!("{fresh:?}"), all);
            });
        }
        assert!(
            boards > 150 && met > 10,
            "{boards} boards, {met} with triples"
        );
    }

    #[test]
    fn triples_looked_for_where_changes_bear_are_the_first_of_all_triples() {
        // Each board against the last board of the solve on which no triple was found: the
        // changes between them, as a search after that one finds them.
        let (mut narrowed, mut met) = (0, 0);
        for puzzle in TRIPLETS {
            let mut nothing_on: Option<Board> = None;
            super::super::super::engine::each_board(puzzle, |b| {
                let s = Start::new(super::super::State::from_board(b));
                let now = Board::of(&s);
                let all = format!("{:?}", first_triple_of_all(&s));
                if let Some(then) = nothing_on {
                    // Cells solved since left out, as `changed_since` leaves them.
                    let changed = cells(now.open)
                        .filter(|&c| then.digits[c] != now.digits[c])
                        .fold(0, |m: Set, c| m | 1 << c);
                    narrowed += usize::from(changed.count_ones() < 10);
                    met += usize::from(all != "None");
                    let found = first_triple(&s, &now, changed);
                    assert_eq!(format!("{found:?}"), all);
                }
                if all == "None" {
                    nothing_on = Some(now);
                }
            });
        }
        assert!(
            narrowed > 100 && met > 10,
            "{narrowed} narrowed, {met} found"
        );
    }

    #[test]
    fn triples_excluding_by_repeats_alone_are_found() {
        // r1c1 and r1c2 a naked pair of 1 and 2, r1c3 1, 2 or 3, r1c9 4, 5 or 6, every other
        // cell open to all: the first three exclude 1 and 2 from r1c3, with no common peer's
        // digits within theirs.
        let mut state = super::super::State {
            cand: [FULL; 9],
            val: [0; 9],
        };
        for (d, cand) in state.cand.iter_mut().enumerate() {
            let r1c9 = !(3..6).contains(&d);
            let out = [d > 1, d > 1, d > 2, false, false, false, false, false, r1c9];
            *cand &= !(0..9).fold(0, |m, c| m | u128::from(out[c]) << c);
        }
        let s = Start::new(state);
        assert!(naked_pair_left(&s));
        let all = first_triple_of_all(&s);
        assert_eq!(
            all.as_ref().map(|d| d.eliminations.clone()),
            Some(vec![(2, 1), (2, 2)])
        );
        let fresh = first_triple(&s, &Board::of(&s), FULL);
        assert_eq!(format!("{fresh:?}"), format!("{all:?}"));
    }

    #[test]
    fn bearing_holds_the_cells_whose_pair_with_a_some_changed_cell_bears_on() {
        let t = tables();
        let mut seed = 0x9e37_79b9_7f4a_7c15u64;
        for round in 0..200 {
            // Sparse changes (a step's few cells) and dense ones.
            let mut changed: Set = 0;
            for _ in 0..(1 + round % 12) {
                seed = seed.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1);
                changed |= 1 << ((seed >> 33) % 81);
            }
            for a in 0..81 {
                let both = Changed {
                    cells: changed,
                    peers: changed,
                };
                let got = bearing(a, both) & FULL;
                let want = (0..81)
                    .filter(|&b| (1u128 << a | 1 << b | t.peers[a] & t.peers[b]) & changed != 0)
                    .fold(0, |m: Set, b| m | 1 << b);
                assert_eq!(got, want, "a {a} changed {changed:x}");
            }
        }
    }
}
