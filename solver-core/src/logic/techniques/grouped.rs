//! Two strong links of one digit where at least one is grouped: a box whose places lie on one
//! row and one column (empty rectangle), or a line whose places lie in two boxes. Sukaku
//! Explainer rates these 0.1 above the plain Skyscraper / Kite / Turbot Fish.

use std::rc::Rc;

use super::per_digit;
use crate::logic::board::{Candidates, HouseKind, bits, digit_char};
use crate::logic::step::{Found, Technique};

/// Words of a cell set: enough for the largest grid (35 × 35 cells).
const WORDS: usize = (crate::Shape::MAX_SIDE * crate::Shape::MAX_SIDE).div_ceil(64);

/// A set of cells, one bit per cell (bit c % 64 of word c / 64); fixed size, so that the
/// searches below never allocate one. `W` is the smallest size [`by_size`] offers for the
/// grid (2 words for 9x9): copying and clearing whole sets is most of the searches' cost.
type Cells<const W: usize> = [u64; W];

/// The one of `options` (for 2, 4, 10 and all words) whose cell sets are the smallest that
/// hold the board's cells.
fn by_size<F>(board: &Candidates, options: [F; 4]) -> F {
    let [two, four, ten, all] = options;
    match board.masks.len().div_ceil(64) {
        ..=2 => two,
        3..=4 => four,
        5..=10 => ten,
        _ => all,
    }
}

/// The best step of one digit with its sort key (rating, removals).
type Best = Option<(u16, usize, Found)>;

/// The best step over the digits, each digit's from `find` (kept per digit as `search`).
fn over_digits(
    board: &Candidates,
    search: per_digit::Search,
    find: [fn(&Candidates, usize) -> Best; 4],
) -> Option<Found> {
    let find = by_size(board, find);
    let mut best: Best = None;
    for d in 0..board.side() {
        per_digit::keep_better(
            &mut best,
            per_digit::cached(search, board, d, || find(board, d)),
        );
    }
    best.map(|(_, _, f)| f)
}

fn cell_set<const W: usize>(cells: impl IntoIterator<Item = usize>) -> Cells<W> {
    let mut set = [0u64; W];
    for c in cells {
        set[c / 64] |= 1 << (c % 64);
    }
    set
}

fn disjoint<const W: usize>(a: &Cells<W>, b: &Cells<W>) -> bool {
    (0..W).all(|w| a[w] & b[w] == 0)
}

fn subset<const W: usize>(a: &Cells<W>, b: &Cells<W>) -> bool {
    (0..W).all(|w| a[w] & !b[w] == 0)
}

/// The cells that see every cell of a group (words past the board's stay full: every
/// search reads them only against sets empty there).
fn seen_by_all<const W: usize>(board: &Candidates, group: &[usize]) -> Cells<W> {
    let mut seen = [u64::MAX; W];
    for &g in group {
        for (s, p) in seen.iter_mut().zip(&board.layout.peers[g]) {
            *s &= p;
        }
    }
    seen
}

/// The cells of one end of a link: one cell, or up to five of a house (a box's places on
/// its row or column, a line's in one box: six places at most, split in two).
#[derive(Clone, Copy)]
struct Group {
    cells: [usize; 6],
    len: usize,
}

impl Group {
    fn of(list: &[usize]) -> Group {
        let mut cells = [0; 6];
        cells[..list.len()].copy_from_slice(list);
        Group {
            cells,
            len: list.len(),
        }
    }

    fn collect(list: impl Iterator<Item = usize>) -> Group {
        let mut g = Group {
            cells: [0; 6],
            len: 0,
        };
        for c in list {
            g.cells[g.len] = c;
            g.len += 1;
        }
        g
    }
}

impl<'a> IntoIterator for &'a Group {
    type Item = &'a usize;
    type IntoIter = std::slice::Iter<'a, usize>;

    fn into_iter(self) -> Self::IntoIter {
        self.cells[..self.len].iter()
    }
}

impl std::ops::Deref for Group {
    type Target = [usize];

    fn deref(&self) -> &[usize] {
        &self.cells[..self.len]
    }
}

/// A group for people: `r2c78` (one cell or several in a line).
fn group_name(board: &Candidates, group: &Group) -> String {
    crate::logic::wording::compact_cells(group, board.side())
}

/// Groups joined by strong and weak links in turn, the first strong, in Eureka notation:
/// `(3)r2c2=(3)r2c78-(3)r5c8=(3)r9c8`.
fn eureka(board: &Candidates, digit: u8, groups: &[&Group]) -> String {
    let mut out = String::new();
    for (i, g) in groups.iter().enumerate() {
        if i > 0 {
            out.push(if i % 2 == 1 { '=' } else { '-' });
        }
        out.push_str(&format!("({}){}", digit_char(digit), group_name(board, g)));
    }
    out
}

/// A strong link between two groups of cells (one of them holds the digit), with the cell
/// sets the chain searches need.
struct Link<const W: usize> {
    from: Group,
    to: Group,
    house: usize,
    /// Both groups.
    cells: Cells<W>,
    from_cells: Cells<W>,
    /// Cells seeing all of `from`, and all of `to`.
    from_seen: Cells<W>,
    to_seen: Cells<W>,
}

impl<const W: usize> Link<W> {
    fn new(board: &Candidates, from: Group, to: Group, house: usize) -> Link<W> {
        Link {
            cells: cell_set(from.iter().chain(to.iter()).copied()),
            from_cells: cell_set(from.iter().copied()),
            from_seen: seen_by_all(board, &from),
            to_seen: seen_by_all(board, &to),
            from,
            to,
            house,
        }
    }

    /// The same link the other way round, from the sets already made (the cells seen by a
    /// group were half of building the links).
    fn reversed(&self) -> Link<W> {
        let mut from_cells = self.cells;
        // The groups share no cell: the end's cells are the link's less its start's.
        for (f, s) in from_cells.iter_mut().zip(&self.from_cells) {
            *f &= !s;
        }
        Link {
            from: self.to,
            to: self.from,
            house: self.house,
            cells: self.cells,
            from_cells,
            from_seen: self.to_seen,
            to_seen: self.from_seen,
        }
    }

    /// Whether `next` can follow this link: another house, no shared cell, and every cell
    /// of its start sees every cell of this link's end (the weak link).
    fn joins(&self, next: &Link<W>) -> bool {
        self.house != next.house
            && disjoint(&self.cells, &next.cells)
            && subset(&next.from_cells, &self.to_seen)
    }
}

/// The cells holding `bit` that see all of `start` and all of `end`, outside `chain`.
fn victims<const W: usize>(
    board: &Candidates,
    bit: u64,
    start: &Cells<W>,
    end: &Cells<W>,
    chain: &Cells<W>,
) -> Vec<(u16, u8)> {
    let digit = bit.trailing_zeros() as u8 + 1;
    let mut out = Vec::new();
    let words = board.masks.len().div_ceil(64);
    for w in 0..words {
        let mut m = start[w] & end[w] & !chain[w];
        while m != 0 {
            let cell = w * 64 + m.trailing_zeros() as usize;
            m &= m - 1;
            if board.masks[cell] & bit != 0 {
                out.push((cell as u16, digit));
            }
        }
    }
    out
}

/// For each link, the links that may follow it, in one list: those of link `i` are
/// `list[first[i]..first[i + 1]]`.
struct Next {
    first: Vec<usize>,
    list: Vec<usize>,
}

impl Next {
    fn of(&self, i: usize) -> &[usize] {
        &self.list[self.first[i]..self.first[i + 1]]
    }
}

/// For each link, the links that may follow it, found through the cells its end sees.
fn successors<const W: usize>(board: &Candidates, links: &[Link<W>]) -> Next {
    // The links starting at each cell, in link order: `order[first[c]..first[c + 1]]`
    // (one list for all cells, not one per cell).
    let mut first = vec![0usize; board.masks.len() + 1];
    // The cells where some link starts: a link's end sees some twenty cells, few of them
    // such starts, and the others are passed over a word at a time.
    let mut starts = [0u64; W];
    for l in links {
        first[l.from[0] + 1] += 1;
        starts[l.from[0] / 64] |= 1 << (l.from[0] % 64);
    }
    for c in 0..board.masks.len() {
        first[c + 1] += first[c];
    }
    let mut order = vec![0usize; links.len()];
    let mut fill = first.clone();
    for (j, l) in links.iter().enumerate() {
        order[fill[l.from[0]]] = j;
        fill[l.from[0]] += 1;
    }
    let words = board.masks.len().div_ceil(64).min(W);
    let mut next = Next {
        first: Vec::with_capacity(links.len() + 1),
        list: Vec::with_capacity(4 * links.len()),
    };
    next.first.push(0);
    for a in links {
        for (w, start) in starts.iter().enumerate().take(words) {
            let mut m = a.to_seen[w] & start;
            while m != 0 {
                let cell = w * 64 + m.trailing_zeros() as usize;
                m &= m - 1;
                let list = &order[first[cell]..first[cell + 1]];
                next.list
                    .extend(list.iter().copied().filter(|&j| a.joins(&links[j])));
            }
        }
        next.first.push(next.list.len());
    }
    next
}

/// The two groups of a grouped link in `house`, if its places (`pos`, listed in `places`)
/// split that way.
fn groups(board: &Candidates, house: usize, pos: u64, places: &[usize]) -> Option<(Group, Group)> {
    let layout = &board.layout;
    if board.kind(house) == HouseKind::Box {
        return box_groups(board, house, pos);
    }
    // A line: places in exactly two of the boxes it crosses.
    let first_box = layout.cell_houses[places[0]][2];
    let in_first = |p: &&usize| layout.cell_houses[**p][2] == first_box;
    let a = Group::collect(places.iter().filter(in_first).copied());
    let b = Group::collect(places.iter().filter(|p| !in_first(p)).copied());
    let second_box = layout.cell_houses[*b.first()?][2];
    b.iter()
        .all(|&p| layout.cell_houses[p][2] == second_box)
        .then_some((a, b))
}

/// The groups of a box's places (`pos`): the places on the row and on the column of the
/// first heart whose row and column hold them all, the heart itself empty.
///
/// Read off position masks: a box lists its cells in reading order, so the row of position
/// `i` is `i / box_cols` and its column `i % box_cols` (comparing cells one by one was
/// a third of the links' cost).
fn box_groups(board: &Candidates, house: usize, pos: u64) -> Option<(Group, Group)> {
    let width = board.shape().box_cols();
    let side = board.side();
    let first_col: u64 = (0..side / width).fold(0, |m, r| m | 1 << (r * width));
    let cells = &board.layout.houses[house];
    let heart = (0..side).find_map(|k| {
        let row = ((1u64 << width) - 1) << (k / width * width);
        let col = first_col << (k % width);
        let fits = pos >> k & 1 == 0 && pos & !(row | col) == 0;
        (fits && pos & row != 0 && pos & col != 0).then_some((row, col))
    })?;
    let group = |mask: u64| Group::collect(bits(pos & mask).map(|i| cells[i] as usize));
    Some((group(heart.0), group(heart.1)))
}

/// The strong links of a digit both ways round, and which are grouped; none when no link is
/// grouped (the searches need one, and building links is most of their cost).
fn links_of<const W: usize>(board: &Candidates, digit: u8) -> (Vec<Link<W>>, Vec<bool>) {
    let mut parts = Vec::with_capacity(board.layout.houses.len());
    for house in 0..board.layout.houses.len() {
        let pos = board.positions(house, digit);
        if !(2..=6).contains(&pos.count_ones()) {
            continue;
        }
        // At most six places: listed on the stack.
        let mut buf = [0usize; 6];
        for (slot, i) in buf.iter_mut().zip(bits(pos)) {
            *slot = board.layout.houses[house][i] as usize;
        }
        let places = &buf[..pos.count_ones() as usize];
        let split = match places.len() {
            2 => Some((Group::of(&places[..1]), Group::of(&places[1..]))),
            3..=6 => groups(board, house, pos, places),
            _ => None,
        };
        parts.extend(split.map(|(a, b)| (a, b, house)));
    }
    if parts.iter().all(|(a, b, _)| a.len == 1 && b.len == 1) {
        return (Vec::new(), Vec::new());
    }
    let mut links = Vec::with_capacity(2 * parts.len());
    let mut grouped = Vec::with_capacity(2 * parts.len());
    for (a, b, house) in parts {
        let g = a.len > 1 || b.len > 1;
        let link = Link::new(board, a, b, house);
        let back = link.reversed();
        links.extend([link, back]);
        grouped.extend([g, g]);
    }
    (links, grouped)
}

/// A digit's strong links, which of them are grouped, and the links that may follow each.
struct Chains<const W: usize> {
    links: Vec<Link<W>>,
    grouped: Vec<bool>,
    next: Next,
}

/// The chains of digit index `d` (none without a grouped link): kept from the last call
/// when the digit's places are the same (links depend on the layout and places alone).
/// Grouped turbot and grouped three-link search ask for the same digit on the same board
/// (both redo a digit whose places changed): building links and successors was half of each
/// search, now done once for both.
fn chains_of<const W: usize>(board: &Candidates, d: usize) -> Option<Rc<Chains<W>>> {
    per_digit::cached(per_digit::Search::GroupedChains, board, d, || {
        build::<W>(board, d as u8 + 1)
    })
}

/// The chains of a digit, built now; none when no link is grouped.
fn build<const W: usize>(board: &Candidates, digit: u8) -> Option<Rc<Chains<W>>> {
    let (links, grouped) = links_of::<W>(board, digit);
    if !grouped.contains(&true) {
        return None;
    }
    // Links that may follow each link in a chain, found once per digit.
    let next = successors(board, &links);
    Some(Rc::new(Chains {
        links,
        grouped,
        next,
    }))
}

/// The best grouped two-link chain: lowest rating, then most eliminations.
pub(crate) fn grouped_turbot(board: &Candidates) -> Option<Found> {
    let find = [
        turbot_digit::<2>,
        turbot_digit::<4>,
        turbot_digit::<10>,
        turbot_digit::<WORDS>,
    ];
    over_digits(board, per_digit::Search::GroupedTurbot, find)
}

/// [`grouped_turbot`] for digit index `d`, with cell sets of `W` words.
fn turbot_digit<const W: usize>(board: &Candidates, d: usize) -> Best {
    let mut best: Best = None;
    let digit = d as u8 + 1;
    let chains = chains_of::<W>(board, d)?;
    let Chains {
        links,
        grouped,
        next,
    } = &*chains;
    // `next` holds exactly the links that join each link: no need to ask again.
    let pairs = (0..links.len())
        .flat_map(|i| next.of(i).iter().map(move |&j| (i, j)))
        .filter(|&(i, j)| grouped[i] || grouped[j]);
    for (i, j) in pairs {
        let (l1, l2) = (&links[i], &links[j]);
        let mut all = l1.cells;
        for (a, b) in all.iter_mut().zip(&l2.cells) {
            *a |= b;
        }
        let elims = victims(board, 1 << d, &l1.from_seen, &l2.to_seen, &all);
        if elims.is_empty() {
            continue;
        }
        let kinds = (board.kind(l1.house), board.kind(l2.house));
        let (name, tenths) = match kinds {
            (HouseKind::Row, HouseKind::Row) | (HouseKind::Col, HouseKind::Col) => {
                ("Grouped Skyscraper", 43)
            }
            (HouseKind::Row, HouseKind::Col) | (HouseKind::Col, HouseKind::Row) => {
                ("Grouped 2-String Kite", 43)
            }
            _ => ("Grouped Turbot Fish", 43),
        };
        let removed = elims.len();
        if best.as_ref().is_some_and(|(t, r, _)| {
            (tenths, std::cmp::Reverse(removed)) >= (*t, std::cmp::Reverse(*r))
        }) {
            continue;
        }
        let text = || {
            format!(
                "digit {}: {} (strong links in {} and {}), so {} or {} holds it and it is removed from the cells that see both",
                digit_char(digit),
                eureka(board, digit, &[&l1.from, &l1.to, &l2.from, &l2.to]),
                board.house_name(l1.house),
                board.house_name(l2.house),
                group_name(board, &l1.from),
                group_name(board, &l2.to),
            )
        };
        let support = || {
            [&l1.from, &l1.to, &l2.from, &l2.to]
                .into_iter()
                .flatten()
                .map(|&c| (c as u16, digit))
                .collect()
        };
        let found = Found::removing(Technique::TurbotFish(name), tenths, elims)
            .resting_on(support)
            .saying(text);
        best = Some((tenths, removed, found));
    }
    best
}

/// The best chain of three links, at least one grouped: rated as SE's three-link chains
/// plus 0.1 (Skyscraper 5.5, Turbot Fish 5.6, Kite 5.7).
pub(crate) fn grouped_three(board: &Candidates) -> Option<Found> {
    let find = [
        three_digit::<2>,
        three_digit::<4>,
        three_digit::<10>,
        three_digit::<WORDS>,
    ];
    over_digits(board, per_digit::Search::GroupedThree, find)
}

/// [`grouped_three`] for digit index `d`, with cell sets of `W` words.
fn three_digit<const W: usize>(board: &Candidates, d: usize) -> Best {
    let mut best: Best = None;
    let digit = d as u8 + 1;
    let chains = chains_of::<W>(board, d)?;
    let Chains {
        links,
        grouped,
        next,
    } = &*chains;
    for (i, l1) in links.iter().enumerate() {
        for &j in next.of(i) {
            let l2 = &links[j];
            for &k in next.of(j) {
                let l3 = &links[k];
                if !(grouped[i] || grouped[j] || grouped[k]) || l3.house == l1.house {
                    continue;
                }
                if !disjoint(&l3.cells, &l1.cells) {
                    continue;
                }
                consider_three(board, digit, [l1, l2, l3], &mut best);
            }
        }
    }
    best
}

fn consider_three<const W: usize>(
    board: &Candidates,
    digit: u8,
    chain: [&Link<W>; 3],
    best: &mut Best,
) {
    let bit = 1u64 << (digit - 1);
    let mut all = chain[0].cells;
    for l in &chain[1..] {
        for (a, b) in all.iter_mut().zip(&l.cells) {
            *a |= b;
        }
    }
    let elims = victims(board, bit, &chain[0].from_seen, &chain[2].to_seen, &all);
    if elims.is_empty() {
        return;
    }
    let (start, end) = (&chain[0].from, &chain[2].to);
    let kinds = chain.map(|l| board.kind(l.house));
    let same_line = kinds.iter().all(|&k| k == kinds[0]) && kinds[0] != HouseKind::Box;
    let kite = kinds.contains(&HouseKind::Row) && kinds.contains(&HouseKind::Col);
    let (name, tenths) = match (same_line, kite) {
        (true, _) => ("Grouped Skyscraper (3 strong links)", 57),
        (_, true) => ("Grouped Three-String Kite", 57),
        _ => ("Grouped Turbot Fish (3 strong links)", 57),
    };
    let removed = elims.len();
    if best.as_ref().is_some_and(|(t, r, _)| {
        (tenths, std::cmp::Reverse(removed)) >= (*t, std::cmp::Reverse(*r))
    }) {
        return;
    }
    let text = || {
        let houses: Vec<String> = chain.iter().map(|l| board.house_name(l.house)).collect();
        let groups: Vec<&Group> = chain.iter().flat_map(|l| [&l.from, &l.to]).collect();
        format!(
            "digit {}: {} (strong links in {}), so {} or {} holds it and it is removed from the cells that see both",
            digit_char(digit),
            eureka(board, digit, &groups),
            houses.join(", "),
            group_name(board, start),
            group_name(board, end),
        )
    };
    let support = || {
        chain
            .iter()
            .flat_map(|l| l.from.iter().chain(&l.to))
            .map(|&c| (c as u16, digit))
            .collect()
    };
    let found = Found::removing(Technique::StrongLinks(name), tenths, elims)
        .resting_on(support)
        .saying(text);
    *best = Some((tenths, removed, found));
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::logic::board::testing::{self, empty};

    /// The groups of a box's places found cell by cell: the first heart (in box order) not
    /// among the places whose row and column hold them all, with places on both.
    fn cell_by_cell(board: &Candidates, house: usize, places: &[usize]) -> Option<[Vec<usize>; 2]> {
        let layout = &board.layout;
        layout.houses[house].iter().find_map(|&e| {
            let e = e as usize;
            let on_row: Vec<usize> = places
                .iter()
                .copied()
                .filter(|&p| layout.row(p) == layout.row(e) && p != e)
                .collect();
            let on_col: Vec<usize> = places
                .iter()
                .copied()
                .filter(|&p| layout.col(p) == layout.col(e) && p != e)
                .collect();
            let fits = !places.contains(&e) && on_row.len() + on_col.len() == places.len();
            (fits && !on_row.is_empty() && !on_col.is_empty()).then_some([on_row, on_col])
        })
    }

    #[test]
    fn chains_are_kept_while_the_digits_places_stay_and_rebuilt_when_they_change() {
        let mut board = empty(3, 3);
        // Row 1 holds digit 1 in c1, c2 (box 1) and c6 (box 2): a grouped link.
        testing::remove(
            &mut board,
            1,
            &[(0, 2), (0, 3), (0, 4), (0, 6), (0, 7), (0, 8)],
        );
        let first = chains_of::<2>(&board, 0).expect("a grouped link");
        let again = chains_of::<2>(&board, 0).expect("kept");
        assert!(Rc::ptr_eq(&first, &again));
        // Digit 2 has nine places in every house: no link, none kept either.
        assert!(chains_of::<2>(&board, 1).is_none());
        assert!(Rc::ptr_eq(
            &first,
            &chains_of::<2>(&board, 0).expect("kept")
        ));
        // Row 2 left with two places: one more link, both ways round.
        let row2: Vec<(usize, usize)> = (2..9).map(|c| (1, c)).collect();
        testing::remove(&mut board, 1, &row2);
        let changed = chains_of::<2>(&board, 0).expect("a grouped link");
        assert!(!Rc::ptr_eq(&first, &changed));
        let fresh = build::<2>(&board, 1).expect("a grouped link");
        assert_eq!(changed.links.len(), fresh.links.len());
        assert_eq!(changed.next.list, fresh.next.list);
        assert_eq!(changed.links.len(), first.links.len() + 2);
    }

    #[test]
    fn a_reversed_link_is_the_link_built_the_other_way_round() {
        let board = empty(3, 3);
        let (a, b) = (Group::of(&[0, 1]), Group::of(&[5]));
        let back = Link::<2>::new(&board, a, b, 0).reversed();
        let built = Link::<2>::new(&board, b, a, 0);
        assert_eq!((&*back.from, &*back.to), (&*built.from, &*built.to));
        assert_eq!(back.house, built.house);
        assert_eq!(back.cells, built.cells);
        assert_eq!(back.from_cells, built.from_cells);
        assert_eq!(back.from_seen, built.from_seen);
        assert_eq!(back.to_seen, built.to_seen);
    }

    #[test]
    fn box_groups_read_off_masks_match_a_cell_by_cell_reading() {
        for (rows, cols) in [(3, 3), (2, 3), (3, 2), (2, 4)] {
            let board = empty(rows, cols);
            let side = rows * cols;
            let mut split = 0;
            for house in 2 * side..3 * side {
                let cells = &board.layout.houses[house];
                for pos in (0u64..1 << side).filter(|p| (3..=6).contains(&p.count_ones())) {
                    let places: Vec<usize> = bits(pos).map(|i| cells[i] as usize).collect();
                    let got = box_groups(&board, house, pos).map(|(a, b)| [a.to_vec(), b.to_vec()]);
                    split += usize::from(got.is_some());
                    assert_eq!(
                        got,
                        cell_by_cell(&board, house, &places),
                        "{rows}x{cols} {pos:b}"
                    );
                }
            }
            assert!(split > 0);
        }
    }
}
