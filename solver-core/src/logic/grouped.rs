//! Two strong links of one digit where at least one is grouped: a box whose places lie on one
//! row and one column (empty rectangle), or a line whose places lie in two boxes. Sukaku
//! Explainer rates these 0.1 above the plain Skyscraper / Kite / Turbot Fish.

use super::board::{Candidates, HouseKind, bits, digit_char};
use super::step::{Found, Technique};

/// Words of a cell set: enough for the largest grid (35 × 35 cells).
const WORDS: usize = (crate::Shape::MAX_SIDE * crate::Shape::MAX_SIDE).div_ceil(64);

/// A set of cells, one bit per cell (bit c % 64 of word c / 64); fixed size, so that the
/// searches below never allocate one. Only the first `words` words are ever set.
type Cells = [u64; WORDS];

fn cell_set(cells: impl IntoIterator<Item = usize>) -> Cells {
    let mut set = [0u64; WORDS];
    for c in cells {
        set[c / 64] |= 1 << (c % 64);
    }
    set
}

fn disjoint(a: &Cells, b: &Cells, words: usize) -> bool {
    (0..words).all(|w| a[w] & b[w] == 0)
}

fn subset(a: &Cells, b: &Cells, words: usize) -> bool {
    (0..words).all(|w| a[w] & !b[w] == 0)
}

/// The cells that see every cell of a group.
fn seen_by_all(board: &Candidates, group: &[usize]) -> Cells {
    let mut seen = [u64::MAX; WORDS];
    for &g in group {
        for (s, p) in seen.iter_mut().zip(&board.layout.peers[g]) {
            *s &= p;
        }
    }
    seen
}

/// A strong link between two groups of cells (one of them holds the digit), with the cell
/// sets the chain searches need.
struct Link {
    from: Vec<usize>,
    to: Vec<usize>,
    house: usize,
    /// Both groups.
    cells: Cells,
    from_cells: Cells,
    /// Cells seeing all of `from`, and all of `to`.
    from_seen: Cells,
    to_seen: Cells,
    /// Words in use for this grid.
    words: usize,
}

impl Link {
    fn new(board: &Candidates, from: Vec<usize>, to: Vec<usize>, house: usize) -> Link {
        Link {
            cells: cell_set(from.iter().chain(&to).copied()),
            from_cells: cell_set(from.iter().copied()),
            from_seen: seen_by_all(board, &from),
            to_seen: seen_by_all(board, &to),
            words: board.masks.len().div_ceil(64),
            from,
            to,
            house,
        }
    }

    /// Whether `next` can follow this link: another house, no shared cell, and every cell
    /// of its start sees every cell of this link's end (the weak link).
    fn joins(&self, next: &Link) -> bool {
        self.house != next.house
            && disjoint(&self.cells, &next.cells, self.words)
            && subset(&next.from_cells, &self.to_seen, self.words)
    }
}

/// The cells holding `bit` that see all of `start` and all of `end`, outside `chain`.
fn victims(
    board: &Candidates,
    bit: u64,
    start: &Cells,
    end: &Cells,
    chain: &Cells,
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

/// For each link, the links that may follow it, found through the cells its end sees.
fn successors(board: &Candidates, links: &[Link]) -> Vec<Vec<usize>> {
    // The links starting at each cell, in link order: `order[first[c]..first[c + 1]]`
    // (one list for all cells, not one per cell).
    let mut first = vec![0usize; board.masks.len() + 1];
    for l in links {
        first[l.from[0] + 1] += 1;
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
    let starting = |c: usize| order.get(*first.get(c)?..*first.get(c + 1)?);
    let words = board.masks.len().div_ceil(64);
    links
        .iter()
        .map(|a| {
            let mut out = Vec::new();
            for w in 0..words {
                let mut m = a.to_seen[w];
                while m != 0 {
                    let cell = w * 64 + m.trailing_zeros() as usize;
                    m &= m - 1;
                    if let Some(list) = starting(cell) {
                        out.extend(list.iter().copied().filter(|&j| a.joins(&links[j])));
                    }
                }
            }
            out
        })
        .collect()
}

/// The two groups of a grouped link in `house`, if its places split that way.
fn groups(board: &Candidates, house: usize, places: &[usize]) -> Option<(Vec<usize>, Vec<usize>)> {
    let layout = &board.layout;
    if board.kind(house) == HouseKind::Box {
        // The first heart whose row and column hold every place; the heart itself empty.
        // Counted first, listed only for the heart that works.
        return layout.houses[house]
            .iter()
            .map(|&e| e as usize)
            .find_map(|e| {
                let (row, col) = (layout.row(e), layout.col(e));
                let on_row = |p: &&usize| layout.row(**p) == row && **p != e;
                let on_col = |p: &&usize| layout.col(**p) == col && **p != e;
                let (rows, cols) = (
                    places.iter().filter(on_row).count(),
                    places.iter().filter(on_col).count(),
                );
                (!places.contains(&e) && rows + cols == places.len() && rows > 0 && cols > 0).then(
                    || {
                        (
                            places.iter().filter(on_row).copied().collect(),
                            places.iter().filter(on_col).copied().collect(),
                        )
                    },
                )
            });
    }
    // A line: places in exactly two of the boxes it crosses.
    let first_box = layout.cell_houses[places[0]][2];
    let (a, b): (Vec<usize>, Vec<usize>) = places
        .iter()
        .partition(|&&p| layout.cell_houses[p][2] == first_box);
    let second_box = layout.cell_houses[*b.first()?][2];
    b.iter()
        .all(|&p| layout.cell_houses[p][2] == second_box)
        .then_some((a, b))
}

/// The strong links of a digit both ways round, and which are grouped; none when no link is
/// grouped (the searches need one, and building links is most of their cost).
fn links_of(board: &Candidates, digit: u8) -> (Vec<Link>, Vec<bool>) {
    let mut parts = Vec::new();
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
            2 => Some((vec![places[0]], vec![places[1]])),
            3..=6 => groups(board, house, places),
            _ => None,
        };
        parts.extend(split.map(|(a, b)| (a, b, house)));
    }
    if parts.iter().all(|(a, b, _)| a.len() == 1 && b.len() == 1) {
        return (Vec::new(), Vec::new());
    }
    let mut links = Vec::with_capacity(2 * parts.len());
    let mut grouped = Vec::with_capacity(2 * parts.len());
    for (a, b, house) in parts {
        let g = a.len() > 1 || b.len() > 1;
        links.push(Link::new(board, a.clone(), b.clone(), house));
        links.push(Link::new(board, b, a, house));
        grouped.extend([g, g]);
    }
    (links, grouped)
}

/// The best grouped two-link chain: lowest rating, then most eliminations.
pub(crate) fn grouped_turbot(board: &Candidates) -> Option<Found> {
    let mut best: Option<(u16, usize, Found)> = None;
    for d in 0..board.side() {
        let digit = d as u8 + 1;
        let (links, grouped) = links_of(board, digit);
        if !grouped.contains(&true) {
            continue;
        }
        let next = successors(board, &links);
        let pairs = (0..links.len())
            .flat_map(|i| next[i].iter().map(move |&j| (i, j)))
            .filter(|&(i, j)| grouped[i] || grouped[j]);
        for (i, j) in pairs {
            let (l1, l2) = (&links[i], &links[j]);
            {
                if !l1.joins(l2) {
                    continue;
                }
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
                        ("Grouped Skyscraper", 41)
                    }
                    (HouseKind::Row, HouseKind::Col) | (HouseKind::Col, HouseKind::Row) => {
                        ("Grouped 2-String Kite", 42)
                    }
                    _ => ("Grouped Turbot Fish", 43),
                };
                let removed = elims.len();
                if best.as_ref().is_some_and(|(t, r, _)| {
                    (tenths, std::cmp::Reverse(removed)) >= (*t, std::cmp::Reverse(*r))
                }) {
                    continue;
                }
                let text = format!(
                    "{} is in {} or {} (strong links in {} and {}), so it leaves the cells that see both",
                    digit_char(digit),
                    board.cell_names(l1.from.iter().copied()),
                    board.cell_names(l2.to.iter().copied()),
                    board.house_name(l1.house),
                    board.house_name(l2.house)
                );
                let support = [&l1.from, &l1.to, &l2.from, &l2.to]
                    .into_iter()
                    .flatten()
                    .map(|&c| (c as u16, digit))
                    .collect();
                let found = Found::removing(Technique::TurbotFish(name), tenths, elims)
                    .resting_on(support)
                    .saying(text);
                best = Some((tenths, removed, found));
            }
        }
    }
    best.map(|(_, _, f)| f)
}

/// The best chain of three links, at least one grouped: rated as SE's three-link chains
/// plus 0.1 (Skyscraper 5.5, Turbot Fish 5.6, Kite 5.7).
pub(crate) fn grouped_three(board: &Candidates) -> Option<Found> {
    let mut best: Option<(u16, usize, Found)> = None;
    for d in 0..board.side() {
        let digit = d as u8 + 1;
        let (links, grouped) = links_of(board, digit);
        if !grouped.contains(&true) {
            continue;
        }
        // Links that may follow each link in a chain, found once per digit.
        let next = successors(board, &links);
        for (i, l1) in links.iter().enumerate() {
            for &j in &next[i] {
                let l2 = &links[j];
                for &k in &next[j] {
                    let l3 = &links[k];
                    if !(grouped[i] || grouped[j] || grouped[k]) || l3.house == l1.house {
                        continue;
                    }
                    if !disjoint(&l3.cells, &l1.cells, l1.words) {
                        continue;
                    }
                    consider_three(board, digit, [l1, l2, l3], &mut best);
                }
            }
        }
    }
    best.map(|(_, _, f)| f)
}

fn consider_three(
    board: &Candidates,
    digit: u8,
    chain: [&Link; 3],
    best: &mut Option<(u16, usize, Found)>,
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
        (true, _) => ("Grouped Skyscraper (3 strong links)", 55),
        (_, true) => ("Grouped Three-String Kite", 57),
        _ => ("Grouped Turbot Fish (3 strong links)", 56),
    };
    let removed = elims.len();
    if best.as_ref().is_some_and(|(t, r, _)| {
        (tenths, std::cmp::Reverse(removed)) >= (*t, std::cmp::Reverse(*r))
    }) {
        return;
    }
    let houses: Vec<String> = chain.iter().map(|l| board.house_name(l.house)).collect();
    let text = format!(
        "{} is in {} or {}: strong links in {}, so it leaves the cells that see both",
        digit_char(digit),
        board.cell_names(start.iter().copied()),
        board.cell_names(end.iter().copied()),
        houses.join(", ")
    );
    let support = chain
        .iter()
        .flat_map(|l| l.from.iter().chain(&l.to))
        .map(|&c| (c as u16, digit))
        .collect();
    let found = Found::removing(Technique::StrongLinks(name), tenths, elims)
        .resting_on(support)
        .saying(text);
    *best = Some((tenths, removed, found));
}
