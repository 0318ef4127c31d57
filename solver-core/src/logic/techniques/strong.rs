//! Single-digit chains of three or four strong links, as Sukaku Explainer rates them
//! ("strong-linked fishes"): either the first cell holds the digit or, link by link, the
//! last one does, so cells seeing both lose it.

use super::per_digit;
use crate::logic::board::{Candidates, HouseKind, digit_char};
use crate::logic::step::{Found, Technique};

/// A conjugate pair: the digit's only two places in a house, oriented `from` → `to`.
#[derive(Clone, Copy)]
struct Link {
    from: usize,
    to: usize,
    house: usize,
}

/// The strong links of one digit, both ways round.
fn links_of(board: &Candidates, bit: u64) -> Vec<Link> {
    let mut links = Vec::with_capacity(2 * board.layout.houses.len());
    let digit = bit.trailing_zeros() as u8 + 1;
    for (house, cells) in board.layout.houses.iter().enumerate() {
        let pos = board.positions(house, digit);
        if pos.count_ones() == 2 {
            let a = cells[pos.trailing_zeros() as usize] as usize;
            let b = cells[63 - pos.leading_zeros() as usize] as usize;
            links.push(Link {
                from: a,
                to: b,
                house,
            });
            links.push(Link {
                from: b,
                to: a,
                house,
            });
        }
    }
    links
}

/// SE's name and rating for a chain of `n` links by the kinds of their houses: all rows or
/// all columns ("Skyscraper"), rows and columns ("Kite"), otherwise ("Turbot Fish").
fn name_and_tenths(n: usize, kinds: &[HouseKind]) -> (&'static str, u16) {
    let same_line = kinds.iter().all(|&k| k == kinds[0]) && kinds[0] != HouseKind::Box;
    let kite = kinds.contains(&HouseKind::Row) && kinds.contains(&HouseKind::Col);
    match (n, same_line, kite) {
        (3, true, _) => ("Skyscraper (3 strong links)", 54),
        (3, _, true) => ("Three-String Kite", 56),
        (3, _, _) => ("Turbot Fish (3 strong links)", 55),
        (_, true, _) => ("Skyscraper (4 strong links)", 57),
        (_, _, true) => ("Four-String Kite", 59),
        _ => ("Turbot Fish (4 strong links)", 58),
    }
}

/// The best chain of exactly `n` strong links: lowest rating, then most eliminations, the
/// first found among equals.
pub(crate) fn strong_links(board: &Candidates, n: usize) -> Option<Found> {
    let search = if n == 3 {
        per_digit::Search::StrongLinks3
    } else {
        per_digit::Search::StrongLinks4
    };
    let mut best: Option<(u16, usize, Found)> = None;
    for d in 0..board.side() {
        let found = per_digit::cached(search, board, d, || digit_links(board, n, d));
        per_digit::keep_better(&mut best, found);
    }
    best.map(|(_, _, f)| f)
}

/// The best chain of `n` strong links of digit index `d`, with its rating and removals.
fn digit_links(board: &Candidates, n: usize, d: usize) -> Option<(u16, usize, Found)> {
    let mut best: Option<(u16, usize, Found)> = None;
    let mut path = Vec::with_capacity(n);
    let bit = 1u64 << d;
    let links = links_of(board, bit);
    // Links whose start sees a link's end: the weak joints of a chain, those of link `i` in
    // `next[first[i]..first[i + 1]]` (one list, not one per link).
    let mut first = Vec::with_capacity(links.len() + 1);
    let mut next = Vec::with_capacity(4 * links.len());
    first.push(0);
    for l in &links {
        // `to`'s peer set: a cell is not its own peer, so `m.from != l.to` as `sees` has it.
        let peers = &board.layout.peers[l.to];
        next.extend((0..links.len()).filter(|&j| {
            let m = links[j];
            peers[m.from / 64] >> (m.from % 64) & 1 != 0
                && m.to != l.from
                && m.to != l.to
                && m.from != l.from
        }));
        first.push(next.len());
    }
    let mut search = Search {
        board,
        links: &links,
        first: &first,
        next: &next,
        n,
        digit: d as u8 + 1,
        best: &mut best,
    };
    for i in 0..links.len() {
        path.clear();
        path.push(i);
        search.extend(&mut path);
    }
    best
}

struct Search<'a> {
    board: &'a Candidates,
    links: &'a [Link],
    /// The links that may follow link `i`: `next[first[i]..first[i + 1]]`.
    first: &'a [usize],
    next: &'a [usize],
    n: usize,
    digit: u8,
    best: &'a mut Option<(u16, usize, Found)>,
}

impl Search<'_> {
    fn uses(&self, path: &[usize], cell: usize) -> bool {
        path.iter()
            .any(|&i| self.links[i].from == cell || self.links[i].to == cell)
    }

    fn extend(&mut self, path: &mut Vec<usize>) {
        if path.len() == self.n {
            self.evaluate(path);
            return;
        }
        let last = path[path.len() - 1];
        for &j in &self.next[self.first[last]..self.first[last + 1]] {
            let l = self.links[j];
            if self.uses(path, l.from) || self.uses(path, l.to) {
                continue;
            }
            path.push(j);
            self.extend(path);
            path.pop();
        }
    }

    fn evaluate(&mut self, path: &[usize]) {
        let board = self.board;
        let bit = 1u64 << (self.digit - 1);
        let (start, end) = (
            self.links[path[0]].from,
            self.links[path[path.len() - 1]].to,
        );
        let elims: Vec<(u16, u8)> = board
            .seeing_both(start, end, bit)
            .filter(|&c| !self.uses(path, c))
            .map(|c| (c as u16, self.digit))
            .collect();
        if elims.is_empty() {
            return;
        }
        let kinds: Vec<HouseKind> = path
            .iter()
            .map(|&i| board.kind(self.links[i].house))
            .collect();
        let (name, tenths) = name_and_tenths(self.n, &kinds);
        let removed = elims.len();
        if self.best.as_ref().is_some_and(|(t, r, _)| {
            (tenths, std::cmp::Reverse(removed)) >= (*t, std::cmp::Reverse(*r))
        }) {
            return;
        }
        let text = || {
            let houses: Vec<String> = path
                .iter()
                .map(|&i| board.house_name(self.links[i].house))
                .collect();
            let cells: Vec<usize> = path
                .iter()
                .flat_map(|&i| [self.links[i].from, self.links[i].to])
                .collect();
            format!(
                "digit {}: {} (strong links in {}), so {} or {} holds it and it is removed from the cells that see both",
                digit_char(self.digit),
                super::turbot::eureka(board, self.digit, &cells),
                houses.join(", "),
                board.cell_name(start),
                board.cell_name(end),
            )
        };
        let support = || {
            path.iter()
                .flat_map(|&i| [self.links[i].from, self.links[i].to])
                .map(|c| (c as u16, self.digit))
                .collect()
        };
        let found = Found::removing(Technique::StrongLinks(name), tenths, elims)
            .resting_on(support)
            .saying(text);
        *self.best = Some((tenths, removed, found));
    }
}
