//! Bidirectional cycles and forcing X- and XY-chains, found as Sukaku Explainer finds them:
//! breadth first from each candidate, each fact reached by the first path to it, every
//! chain rated by its own length, and the one step SE would take out of all it finds.
//!
//! SE searches three times over the candidates: with house links only (X), with cell links
//! only (Y: cycles alone, from bivalue cells), then with both. A cycle removes the digits
//! that both a true and a false fact of the loop see, outside the loop's cells; a forcing
//! chain leads from an assumption to its opposite. Among everything found, SE takes the
//! lowest rating, then the fewest facts, then X before Y before XY, then the first found.

use std::cell::Cell;

use super::closure::{ByFact, Reaches};
use super::deduction::{Deduction, fact};
use super::rating;
use super::state::{BIT, NO_CELL, Set, Start, cells};

/// A fact: `(cell * 9 + digit) * 2 + on`.
type Fact = u16;

fn fact_of(c: usize, d: usize, on: bool) -> Fact {
    ((c * 9 + d) * 2 + usize::from(on)) as Fact
}

fn parts(f: Fact) -> (usize, usize, bool) {
    let f = usize::from(f);
    (f / 18, f / 2 % 9, f & 1 == 1)
}

/// No parent: the assumption a search starts from.
const ROOT: u32 = u32::MAX;

/// Marks a queued node that copies a false fact already queued (see [`cycles`]).
const COPY: u32 = 1 << 31;

/// Which links a search follows.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Links {
    /// House links only.
    X,
    /// Cell links only (but a true digit still removes itself from its houses).
    Y,
    /// Both.
    Xy,
}

impl Links {
    /// SE's tie-break among equal ratings and lengths.
    fn order(self) -> u8 {
        match self {
            Links::X => 2,
            Links::Y => 3,
            Links::Xy => 4,
        }
    }
}

/// The facts a search has reached, each with the one it came from.
#[derive(Default)]
struct Tree {
    nodes: Vec<Node>,
}

/// A fact reached, the node it came from, and the facts on the path from the assumption, its
/// own included.
#[derive(Clone, Copy)]
struct Node {
    fact: Fact,
    depth: u16,
    parent: u32,
}

impl Tree {
    fn clear(&mut self) {
        self.nodes.clear();
    }
    fn push(&mut self, fact: Fact, parent: u32) -> u32 {
        let depth = if parent == ROOT {
            1
        } else {
            self.nodes[parent as usize].depth + 1
        };
        self.nodes.push(Node {
            fact,
            depth,
            parent,
        });
        (self.nodes.len() - 1) as u32
    }
    fn fact(&self, i: u32) -> Fact {
        self.nodes[i as usize].fact
    }
    fn depth(&self, i: u32) -> u16 {
        self.nodes[i as usize].depth
    }
    /// The facts from node `i` back to the assumption, `i` first.
    fn path(&self, mut i: u32) -> Vec<Fact> {
        let mut out = Vec::new();
        while i != ROOT {
            let node = self.nodes[i as usize];
            out.push(node.fact);
            i = node.parent;
        }
        out
    }
    /// Whether fact `f` is on the path before node `i` (not `i` itself).
    fn above(&self, i: u32, f: Fact) -> bool {
        let mut j = self.nodes[i as usize].parent;
        while j != ROOT {
            let node = self.nodes[j as usize];
            if node.fact == f {
                return true;
            }
            j = node.parent;
        }
        false
    }
}

/// A bit per fact.
#[derive(Clone, Copy)]
struct Seen([u64; 23]);

impl Seen {
    fn new() -> Seen {
        Seen([0; 23])
    }
    fn has(&self, f: Fact) -> bool {
        self.0[usize::from(f) / 64] >> (f % 64) & 1 != 0
    }
    fn add(&mut self, f: Fact) {
        self.0[usize::from(f) / 64] |= 1 << (f % 64);
    }
}

/// The most links a candidate's two facts have: eight other digits and twenty peers when
/// true, a cell link and three house links when false.
const MOST_LINKS: usize = 8 + 20 + 1 + 3;

/// The facts candidate (`c`, `d`) true makes false, in SE's order: the cell's other digits
/// (its cell links), then the digit's other places in the box, the row outside the box,
/// the column outside the box. (Written from `out[at]` on; returns where they start, where
/// its house links start, where they end.)
fn weak(s: &Start, (c, d): (usize, usize), out: &mut [Fact], mut at: usize) -> [u32; 3] {
    let start = at;
    let mut m = s.digits(c) & !(1 << d);
    while m != 0 {
        out[at] = fact_of(c, m.trailing_zeros() as usize, false);
        at += 1;
        m &= m - 1;
    }
    let house = at;
    let [row, col, bx] = s.tables.house_sets[c];
    let places = s.cand[d] & !BIT[c];
    for set in [places & bx, places & row & !bx, places & col & !bx] {
        for q in cells(set) {
            out[at] = fact_of(q, d, false);
            at += 1;
        }
    }
    [start as u32, house as u32, at as u32]
}

/// The facts candidate (`c`, `d`) false makes true: the cell's other digit where it has two
/// (its cell link), then the digit's other place in each house where it has two (its house
/// links), each once (box, row, column). (As [`weak`].)
fn strong(s: &Start, (c, d): (usize, usize), out: &mut [Fact], mut at: usize) -> [u32; 3] {
    let start = at;
    let m = s.digits(c);
    if m.count_ones() == 2 {
        out[at] = fact_of(c, (m & !(1 << d)).trailing_zeros() as usize, true);
        at += 1;
    }
    let house = at;
    let [row, col, bx] = s.bilocal(c, d);
    for q in [bx, row, col] {
        let g = fact_of(usize::from(q), d, true);
        if q != NO_CELL && !out[start..at].contains(&g) {
            out[at] = g;
            at += 1;
        }
    }
    [start as u32, house as u32, at as u32]
}

/// Every fact's links on the board, worked out once for all the searches of a step: a true
/// fact's weak links ([`weak`]) and a false fact's strong links ([`strong`]), each in SE's
/// order, cell links before house links.
#[derive(Default)]
struct LinkTable {
    facts: Vec<Fact>,
    /// Per fact: where its links start, where its house links start, where they end.
    bounds: Vec<[u32; 3]>,
}

impl LinkTable {
    /// The links of the candidates `list` (every candidate of `s`). The entries of other
    /// facts are left as they were, from an earlier board: no search reads them, and
    /// clearing them would cost more than building the rest.
    fn build(&mut self, s: &Start, list: &[(usize, usize)]) {
        self.bounds.resize(81 * 9 * 2, [0; 3]);
        // Room for every link, written in place.
        let need = list.len() * MOST_LINKS;
        if self.facts.len() < need {
            self.facts.resize(need, 0);
        }
        let out = &mut self.facts[..];
        let mut at = 0;
        for &(c, d) in list {
            let on = weak(s, (c, d), out, at);
            let off = strong(s, (c, d), out, on[2] as usize);
            at = off[2] as usize;
            let f = usize::from(fact_of(c, d, true));
            self.bounds[f] = on;
            self.bounds[f ^ 1] = off;
        }
    }

    /// The facts `f` leads to by `links`: a true fact's weak links (house ones only for X; a
    /// true digit removes itself from its houses whatever the links), a false fact's strong
    /// links.
    fn follow(&self, f: Fact, links: Links) -> &[Fact] {
        let [start, house, end] = self.bounds[usize::from(f)].map(|i| i as usize);
        let on = f & 1 == 1;
        let range = match links {
            Links::X => house..end,
            Links::Y if !on => start..house,
            Links::Y | Links::Xy => start..end,
        };
        &self.facts[range]
    }
}

/// One chain or cycle found, with what SE sorts by, and its path (the end first, the
/// assumption last) to word it by, should it be the step taken.
struct Found {
    difficulty: f64,
    facts: usize,
    order: u8,
    deduction: Deduction,
    path: Vec<Fact>,
    cycle: bool,
    /// For a chain found by its length alone: its assumption and links, to find its path
    /// again should it be the step taken.
    replay: Option<(Fact, Links)>,
}

impl Found {
    /// Whether `self` comes before `other` in SE's sorted list (the first found wins ties).
    fn before(&self, other: &Found) -> bool {
        (self.difficulty, self.facts, self.order) < (other.difficulty, other.facts, other.order)
    }

    /// The deduction, with its support and sentence where it will be read: worded only for
    /// the step taken, not for every chain offered.
    fn into_deduction(self) -> Deduction {
        let Found {
            mut deduction,
            path,
            cycle,
            ..
        } = self;
        let name = deduction.name;
        if cycle {
            // The loop's facts: all but the assumption, met again at the end.
            let lp = &path[..path.len() - 1];
            deduction.rest_on(|| support(lp));
            deduction.say(|| {
                let mut loop_facts: Vec<Fact> = path.iter().rev().copied().collect();
                loop_facts.dedup();
                format!(
                    "{name}: a loop that holds either way round removes each candidate that sees a place of its digit shown true and one shown false: {}",
                    eureka(&loop_facts)
                )
            });
        } else {
            let (c, d, is_on) = parts(path[path.len() - 1]);
            deduction.rest_on(|| support(&path));
            deduction.say(|| {
                let forward: Vec<Fact> = path.iter().rev().copied().collect();
                format!(
                    "{name}: {} leads to {}: {}",
                    fact(c, d, is_on),
                    fact(c, d, !is_on),
                    eureka(&forward)
                )
            });
        }
        deduction
    }
}

/// The searches' working storage, reused from candidate to candidate.
struct Search {
    tree: Tree,
    on: Vec<u32>,
    off: Vec<u32>,
    /// The nodes where cycles close.
    ends: Vec<u32>,
    table: LinkTable,
    /// For [`chain_length`]: each fact's depth, valid where seen, and two layers of facts.
    depth: Vec<u8>,
    layer: Vec<Fact>,
    next: Vec<Fact>,
}

thread_local! {
    /// The searches' storage, kept from step to step: made anew, its buffers would cost as
    /// much as a short step's searches.
    static STORAGE: Cell<Option<Search>> = const { Cell::new(None) };
}

impl Search {
    fn new() -> Search {
        // Room for a search's facts at once: grown push by push, the buffers cost as much as
        // a short search.
        Search {
            tree: Tree {
                nodes: Vec::with_capacity(2 * 81 * 9 * 2),
            },
            on: Vec::with_capacity(81 * 9),
            off: Vec::with_capacity(81 * 9),
            ends: Vec::with_capacity(64),
            table: LinkTable {
                facts: Vec::with_capacity(81 * 9 * 16),
                bounds: Vec::new(),
            },
            depth: vec![0; 81 * 9 * 2],
            layer: Vec::with_capacity(81 * 9),
            next: Vec::with_capacity(81 * 9),
        }
    }
}

/// The assumptions that may lead to their own opposite by static links, from the links'
/// transitive closure ([`Reaches::refuted`]), which is far cheaper than a search from each.
///
/// Every chain found is such a path (X and Y links are static links), and every candidate a
/// cycle removes is refuted so too (it sees a true and a false fact of the loop: its truth
/// leads into the loop, the loop's contrapositive runs back the other way, and out to its
/// absence); an X-cycle's loop and removals keep to one digit. A search whose assumption is
/// not listed finds nothing, so it is skipped.
struct Refuted<'a> {
    /// Bit per fact (see [`Seen`]).
    facts: Seen,
    /// The closure by fact, to leave out of a search the facts that cannot lie on what it
    /// looks for (none: every fact reached is followed).
    by_fact: Option<ByFact<'a>>,
    /// Per candidate (`cell * 9 + digit`), the digits a cycle through it may remove (see
    /// [`Reaches::loop_starts`]): an X-cycle keeps to its own digit.
    loops: Vec<u16>,
    /// Whether a search stops once what it could still find cannot come before the best.
    bounded: bool,
}

impl Refuted<'_> {
    fn of(closure: &Reaches) -> Refuted<'_> {
        let changes = closure.refuted();
        let mut facts = Seen::new();
        for &(c, d) in &changes.removed {
            // The pass lists a candidate refuted true only once; its absence may be too.
            facts.add(fact_of(c, d, true));
            facts.add(fact_of(c, d, false));
        }
        for &(c, d) in &changes.set {
            facts.add(fact_of(c, d, false));
        }
        // With nothing refuted there is nothing to search (nor any cycle: see above).
        let any = !changes.removed.is_empty() || !changes.set.is_empty();
        Refuted {
            facts,
            by_fact: any.then(|| closure.by_fact()),
            loops: if any {
                closure.loop_starts()
            } else {
                Vec::new()
            },
            bounded: true,
        }
    }

    /// Every assumption listed, each search run to its end (the searches as they would run
    /// without the closure or the best found so far).
    #[cfg(test)]
    fn everything() -> Refuted<'static> {
        Refuted {
            facts: Seen([u64::MAX; 23]),
            by_fact: None,
            loops: vec![0x1ff; 81 * 9],
            bounded: false,
        }
    }

    fn none(&self) -> bool {
        self.facts.0.iter().all(|&w| w == 0)
    }
}

/// The step SE's unary chaining takes on this board, if any.
/// `closure` is that of the links of `s`.
pub(crate) fn static_chains(s: &Start, closure: &Reaches) -> Option<Deduction> {
    search_refuted(s, &Refuted::of(closure))
}

/// [`static_chains`], searching only from the assumptions `refuted` lists.
fn search_refuted(s: &Start, refuted: &Refuted) -> Option<Deduction> {
    if refuted.none() {
        return None;
    }
    let list = s.candidates();
    let mut search = STORAGE
        .try_with(Cell::take)
        .ok()
        .flatten()
        .unwrap_or_else(Search::new);
    search.table.build(s, &list);
    let mut best: Option<Found> = None;
    let mut caps = Caps::default();
    for links in [Links::X, Links::Y, Links::Xy] {
        // Every XY step rates 7.0 or more; one found lower cannot be displaced.
        if links == Links::Xy && best.as_ref().is_some_and(|b| b.difficulty < 7.0) {
            break;
        }
        for &(c, d) in &list {
            if s.digits(c).count_ones() < 2 {
                continue;
            }
            if links == Links::Y && s.digits(c).count_ones() > 2 {
                continue;
            }
            let cycle_base = if links == Links::Xy {
                rating::FORCING_XY
            } else {
                rating::CYCLE
            };
            let digits = if links == Links::X { 1 << d } else { 0x1ff };
            if refuted.loops[c * 9 + d] & digits != 0 {
                let most = caps.get(&best, cycle_base, refuted.bounded);
                let by_fact = refuted.by_fact.as_ref();
                cycles(s, &mut search, (c, d), (links, by_fact), most, &mut best);
            }
            if links != Links::Y {
                let base = if links == Links::Xy {
                    rating::FORCING_XY
                } else {
                    rating::FORCING_X
                };
                for on in [true, false] {
                    if !refuted.facts.has(fact_of(c, d, on)) {
                        continue;
                    }
                    let most = caps.get(&best, base, refuted.bounded);
                    let by_fact = refuted.by_fact.as_ref();
                    let start = (c, d, on);
                    if !refuted.bounded {
                        if let Some(path) = chain_path(&mut search, start, (links, by_fact), most) {
                            offer(&mut best, chain_found(s, start, links, path.len(), path));
                        }
                    } else if let Some(n) = chain_length(&mut search, start, (links, by_fact), most)
                    {
                        let mut found = chain_found(s, start, links, n, Vec::new());
                        found.replay = Some((fact_of(c, d, on), links));
                        offer(&mut best, found);
                    }
                }
            }
        }
    }
    if let Some(best) = best.as_mut()
        && let Some((f, links)) = best.replay
    {
        // The same search that found the length finds the path, of that length.
        let by_fact = refuted.by_fact.as_ref();
        best.path = chain_path(&mut search, parts(f), (links, by_fact), best.facts)
            .expect("a chain of the length found");
    }
    let _ = STORAGE.try_with(|kept| kept.set(Some(search)));
    Some(best?.into_deduction())
}

/// [`cap`] for the bases a search runs on, worked out again only when the best changes.
#[derive(Default)]
struct Caps {
    /// The best's rating and facts the caps are for.
    of: Option<(f64, usize)>,
    /// The caps, by base.
    caps: Vec<(u16, usize)>,
}

impl Caps {
    fn get(&mut self, best: &Option<Found>, base: u16, bounded: bool) -> usize {
        let Some(b) = best.as_ref().filter(|_| bounded) else {
            return usize::MAX;
        };
        let key = (b.difficulty, b.facts);
        if self.of != Some(key) {
            self.of = Some(key);
            self.caps.clear();
        }
        if let Some(&(_, n)) = self.caps.iter().find(|x| x.0 == base) {
            return n;
        }
        let n = cap(best, base);
        self.caps.push((base, n));
        n
    }
}

/// The most facts a chain on `base` may hold and still come before `best`.
fn cap(best: &Option<Found>, base: u16) -> usize {
    let Some(b) = best else {
        return usize::MAX;
    };
    let mut n = 1;
    loop {
        let d = rating::difficulty(base, n + 1);
        // A later chain comes before the best only if strictly shorter or rated lower: it
        // is of the same kind or a later one, and the first found wins ties.
        if d > b.difficulty || (d == b.difficulty && n + 1 >= b.facts) {
            return n;
        }
        n += 1;
    }
}

fn offer(best: &mut Option<Found>, found: Found) {
    if best.as_ref().is_none_or(|b| found.before(b)) {
        *best = Some(found);
    }
}

/// The cycles through candidate (`c`, `d`) assumed true, of at most `cap` facts.
///
/// SE follows every false fact again each time a true one makes it (unless it lies behind
/// that true one), but a false fact followed a second time adds no true fact not already
/// reached: only the copies of facts that lead straight back to the start matter, as the
/// ends of cycles, so only they are kept.
///
/// With `by_fact`, facts outside the start's component are left out: a loop through the
/// start keeps to it, and so does every path from the start to a fact of it, so the facts
/// of the component are reached by the same paths in the same order.
fn cycles(
    s: &Start,
    search: &mut Search,
    (c, d): (usize, usize),
    (links, by_fact): (Links, Option<&ByFact>),
    cap: usize,
    best: &mut Option<Found>,
) {
    let source = fact_of(c, d, true);
    let home = by_fact.map(|b| b.component(source));
    let keep = |f: Fact| by_fact.is_none_or(|b| Some(b.component(f)) == home);
    // The false facts whose strong links lead to the start.
    let mut back = Seen::new();
    for &f in search.table.follow(source ^ 1, links) {
        back.add(f ^ 1);
    }
    let Search {
        tree,
        on,
        off,
        ends,
        table,
        ..
    } = search;
    tree.clear();
    on.clear();
    off.clear();
    ends.clear();
    let (mut reached, mut seen_off) = (Seen::new(), Seen::new());
    reached.add(source);
    on.push(tree.push(source, ROOT));
    let mut length = 0;
    while !on.is_empty() || !off.is_empty() {
        // A cycle closed at the next length would hold more facts than the cap.
        if length + 2 > cap {
            break;
        }
        length += 1;
        for &i in on.iter() {
            for &f in table.follow(tree.fact(i), links) {
                if !seen_off.has(f) {
                    seen_off.add(f);
                    if keep(f) {
                        off.push(tree.push(f, i));
                    }
                } else if back.has(f) && !tree.above(i, f) {
                    off.push(tree.push(f, i) | COPY);
                }
            }
        }
        on.clear();
        length += 1;
        for &k in off.iter() {
            let i = k & !COPY;
            let f = tree.fact(i);
            if length >= 4 && back.has(f) {
                ends.push(tree.push(source, i));
            }
            if k & COPY != 0 {
                continue;
            }
            for &g in table.follow(f, links) {
                if !reached.has(g) {
                    reached.add(g);
                    if keep(g) {
                        on.push(tree.push(g, i));
                    }
                }
            }
        }
        off.clear();
    }
    for &end in ends.iter() {
        if let Some(found) = cycle(s, tree, end, links, best) {
            offer(best, found);
        }
    }
}

/// The cycle closed at node `end`, if it removes anything and comes before `best`.
fn cycle(s: &Start, tree: &Tree, end: u32, links: Links, best: &Option<Found>) -> Option<Found> {
    let (name, base) = match links {
        Links::X => ("Bidirectional X-cycle", rating::CYCLE),
        Links::Y => ("Bidirectional Y-cycle", rating::CYCLE),
        Links::Xy => ("Bidirectional cycle", rating::FORCING_XY),
    };
    // The loop's facts: all but the assumption, met again at the end. Most cycles found
    // neither come before the best nor remove anything: both are told from the tree, and
    // the path is listed only for one that does.
    let loop_nodes = || {
        let mut i = end;
        std::iter::from_fn(move || {
            let node = tree.nodes[i as usize];
            (node.parent != ROOT).then(|| {
                i = node.parent;
                node.fact
            })
        })
    };
    let facts = distinct(loop_nodes());
    let difficulty = rating::difficulty(base, facts);
    let key = (difficulty, facts, links.order());
    if best
        .as_ref()
        .is_some_and(|b| key >= (b.difficulty, b.facts, b.order))
    {
        return None;
    }
    let in_loop: Set = loop_nodes().fold(0, |a, f| a | 1 << parts(f).0);
    let (mut when_on, mut when_off) = ([0 as Set; 9], [0 as Set; 9]);
    for f in loop_nodes() {
        let (c, d, on) = parts(f);
        let seen = s.tables.peers[c] & !in_loop & s.cand[d];
        if on {
            when_on[d] |= seen;
        } else {
            when_off[d] |= seen;
        }
    }
    if (0..9).all(|d| when_on[d] & when_off[d] == 0) {
        return None;
    }
    let mut removed: Vec<(u16, u8)> = Vec::new();
    for d in 0..9 {
        for q in cells(when_on[d] & when_off[d]) {
            removed.push((q as u16, d as u8 + 1));
        }
    }
    removed.sort_unstable();
    let path = tree.path(end);
    let tenths = rating::tenths(difficulty);
    let (c, d, _) = parts(path[path.len() - 1]);
    let mut deduction = Deduction::setting(name, tenths, c, d, false);
    deduction.eliminations = removed;
    Some(Found {
        difficulty,
        facts,
        order: links.order(),
        deduction,
        path,
        cycle: true,
        replay: None,
    })
}

/// Which facts a chain search keeps: with `by_fact`, only those that lead to `target`.
#[inline(always)]
fn leading_to(by_fact: Option<&ByFact>, target: Fact) -> impl Fn(Fact) -> bool {
    let to = by_fact.map(|b| (b, b.bit(target)));
    move |f| to.is_none_or(|(b, to)| b.leads(f, to))
}

/// How many facts the chain [`chain_path`] finds holds, if at most `cap`, found by a search
/// half as deep: links hold both ways round (a fact `a` leads to `b` exactly when the
/// opposite of `b` leads to the opposite of `a`), so a chain of `n` links from the
/// assumption to its opposite passes a fact `v` within `n / 2` links (rounded up) whose
/// opposite the assumption reaches within `n / 2` links (rounded down), and any fact reached
/// both ways round at depths `a` and `b` makes such a chain of `a + b` links.
fn chain_length(
    search: &mut Search,
    (c, d, is_on): (usize, usize, bool),
    (links, by_fact): (Links, Option<&ByFact>),
    cap: usize,
) -> Option<usize> {
    let source = fact_of(c, d, is_on);
    let keep = leading_to(by_fact, source ^ 1);
    let Search {
        table,
        depth,
        layer,
        next,
        ..
    } = search;
    layer.clear();
    layer.push(source);
    let mut seen = Seen::new();
    seen.add(source);
    depth[usize::from(source)] = 0;
    // The fewest links of a chain met so far, and the depth of the layer.
    let (mut shortest, mut k) = (usize::MAX, 0);
    loop {
        // Every fact within `k` links is seen: a chain of at most `2k` links is met.
        if shortest <= 2 * k || layer.is_empty() {
            return (shortest < cap).then(|| shortest + 1);
        }
        // The chain has at least `2k + 1` links, `2k + 2` facts.
        if 2 * k + 2 > cap {
            return None;
        }
        next.clear();
        for &f in layer.iter() {
            for &g in table.follow(f, links) {
                if seen.has(g) {
                    continue;
                }
                seen.add(g);
                depth[usize::from(g)] = (k + 1) as u8;
                if seen.has(g ^ 1) {
                    shortest = shortest.min(k + 1 + usize::from(depth[usize::from(g ^ 1)]));
                }
                if keep(g) {
                    next.push(g);
                }
            }
        }
        std::mem::swap(layer, next);
        k += 1;
    }
}

/// The chain from candidate (`c`, `d`) assumed `on` to its opposite, of at most `cap` facts:
/// its facts, the end first.
///
/// With `by_fact`, facts that do not lead to the opposite are left out: every fact on a path
/// to it leads to it, so it is reached by the same path at the same depth.
fn chain_path(
    search: &mut Search,
    (c, d, is_on): (usize, usize, bool),
    (links, by_fact): (Links, Option<&ByFact>),
    cap: usize,
) -> Option<Vec<Fact>> {
    let source = fact_of(c, d, is_on);
    let target = source ^ 1;
    let keep = leading_to(by_fact, target);
    let Search {
        tree,
        on,
        off,
        table,
        ..
    } = search;
    tree.clear();
    on.clear();
    off.clear();
    let (mut seen_on, mut seen_off) = (Seen::new(), Seen::new());
    let root = tree.push(source, ROOT);
    if is_on {
        seen_on.add(source);
        on.push(root);
    } else {
        seen_off.add(source);
        off.push(root);
    }
    let mut end = None;
    // Each fact of `from` followed by its links: the target ends the chain (what follows it
    // could not change the path to it), new facts join `to`.
    let pass = |tree: &mut Tree,
                from: &[u32],
                to: &mut Vec<u32>,
                seen: &mut Seen,
                end: &mut Option<u32>| {
        for &i in from {
            for &f in table.follow(tree.fact(i), links) {
                if f == target {
                    *end = Some(tree.push(f, i));
                    return;
                }
                if !seen.has(f) {
                    seen.add(f);
                    if keep(f) {
                        to.push(tree.push(f, i));
                    }
                }
            }
        }
    };
    // A pass makes nodes one deeper than those it follows, in order of depth: past the cap,
    // no chain can come before the best.
    let too_deep = |tree: &Tree, queue: &[u32]| {
        queue
            .first()
            .is_some_and(|&i| usize::from(tree.depth(i)) + 1 > cap)
    };
    while !on.is_empty() || !off.is_empty() {
        if too_deep(tree, on) {
            return None;
        }
        pass(tree, on, off, &mut seen_off, &mut end);
        on.clear();
        if end.is_some() {
            break;
        }
        if too_deep(tree, off) {
            return None;
        }
        pass(tree, off, on, &mut seen_on, &mut end);
        off.clear();
        if end.is_some() {
            break;
        }
    }
    end.map(|end| tree.path(end))
}

/// The step a chain of `facts` facts from candidate (`c`, `d`) assumed `on` to its opposite
/// makes (with its path, end first, or none yet).
fn chain_found(
    s: &Start,
    (c, d, is_on): (usize, usize, bool),
    links: Links,
    facts: usize,
    path: Vec<Fact>,
) -> Found {
    let (name, base) = match links {
        Links::Xy => ("Forcing chain", rating::FORCING_XY),
        _ => ("Forcing X-chain", rating::FORCING_X),
    };
    let difficulty = rating::difficulty(base, facts);
    let tenths = rating::tenths(difficulty);
    let mut deduction = Deduction::setting(name, tenths, c, d, !is_on);
    if !is_on {
        // The digit is placed: SE removes the cell's other digits.
        deduction.placements.clear();
        let mut m = s.digits(c) & !(1 << d);
        while m != 0 {
            deduction
                .eliminations
                .push((c as u16, m.trailing_zeros() as u8 + 1));
            m &= m - 1;
        }
    }
    Found {
        difficulty,
        facts,
        order: links.order(),
        deduction,
        path,
        cycle: false,
        replay: None,
    }
}

/// How many different facts a path holds (SE's count of a chain's ancestors).
fn distinct(path: impl IntoIterator<Item = Fact>) -> usize {
    let mut seen = Seen::new();
    let mut n = 0;
    for f in path {
        if !seen.has(f) {
            seen.add(f);
            n += 1;
        }
    }
    n
}

/// The candidates a path passes through, sorted.
fn support(path: &[Fact]) -> Vec<(u16, u8)> {
    let mut out: Vec<(u16, u8)> = path
        .iter()
        .map(|&f| {
            let (c, d, _) = parts(f);
            (c as u16, d as u8 + 1)
        })
        .collect();
    out.sort_unstable();
    out.dedup();
    out
}

/// A chain in Eureka notation: `(4)r1c2=(4)r1c7-(4)r5c7`.
fn eureka(path: &[Fact]) -> String {
    super::trail::eureka(path.iter().map(|&f| parts(f)))
}

#[cfg(test)]
mod tests {
    use super::super::state::State;
    use super::*;
    use crate::Grid;
    use crate::logic::engine::each_board;
    use crate::logic::{RateOptions, rate};

    /// Rated 7.0 by SE for a ten-cell Y-cycle (the Y pass has no forcing chains: a shorter
    /// Y-chain to the start's opposite rates as an XY chain), and 7.0 for a four-cell XY cycle.
    const CYCLES: [(&str, &str); 2] = [
        (
            ".........1.7...4.3..64371..4.......7.69...58..7..9..6.6..1.3..8...9.5.....5.4.2..",
            "Bidirectional Y-cycle",
        ),
        (
            "....8..69.....47...4...3..2.5..1...3.96...85.3...6..9.2..1...4...14.....97..5....",
            "Bidirectional cycle",
        ),
    ];

    #[test]
    fn cycles_rate_as_se_rates_them() {
        for (puzzle, name) in CYCLES {
            let grid: Grid = puzzle.parse().expect("a valid puzzle");
            let rating = rate(&grid, &RateOptions::default()).expect("a unique solution");
            let hardest = rating.hardest.expect("a step");
            assert_eq!(rating.tenths, 70, "{puzzle}");
            assert_eq!(hardest.technique.name(), name, "{puzzle}");
        }
    }

    #[test]
    fn skipping_unrefuted_assumptions_finds_the_same_step() {
        let (mut found, mut skipped) = (0, 0);
        let puzzles = CYCLES.iter().map(|p| p.0);
        for puzzle in puzzles.chain(crate::logic::engine::SOLVE_PATH_PUZZLES) {
            each_board(puzzle, |board| {
                let s = Start::new(State::from_board(board));
                let closure = Reaches::new(&s);
                let refuted = Refuted::of(&closure);
                let fast = search_refuted(&s, &refuted);
                let full = search_refuted(&s, &Refuted::everything());
                assert_eq!(format!("{fast:?}"), format!("{full:?}"), "{puzzle}");
                found += usize::from(full.is_some());
                skipped += usize::from(refuted.none());
            });
        }
        assert!(
            found > 10 && skipped > 10,
            "{found} found, {skipped} skipped"
        );
    }

    #[test]
    fn a_chain_length_is_that_of_the_path_found() {
        let (mut chains, mut cut) = (0, 0);
        for puzzle in crate::logic::engine::SOLVE_PATH_PUZZLES {
            each_board(puzzle, |board| {
                let s = Start::new(State::from_board(board));
                let closure = Reaches::new(&s);
                let by_fact = closure.by_fact();
                let mut search = Search::new();
                search.table.build(&s, &s.candidates());
                for (c, d) in s.candidates() {
                    for (on, links) in [
                        (true, Links::X),
                        (false, Links::X),
                        (true, Links::Xy),
                        (false, Links::Xy),
                    ] {
                        let full = chain_path(&mut search, (c, d, on), (links, None), usize::MAX);
                        let Some(n) = full.as_ref().map(Vec::len) else {
                            let fast = chain_length(
                                &mut search,
                                (c, d, on),
                                (links, Some(&by_fact)),
                                usize::MAX,
                            );
                            assert_eq!(fast, None, "{puzzle} {c} {d} {on}");
                            continue;
                        };
                        chains += 1;
                        for cap in [usize::MAX, n + 1, n, n - 1, n / 2] {
                            let pruned =
                                chain_path(&mut search, (c, d, on), (links, Some(&by_fact)), cap);
                            let fast =
                                chain_length(&mut search, (c, d, on), (links, Some(&by_fact)), cap);
                            let bare = chain_length(&mut search, (c, d, on), (links, None), cap);
                            let expected = (n <= cap).then_some(n);
                            assert_eq!(fast, expected, "{puzzle} {c} {d} {on} {cap}");
                            assert_eq!(bare, expected, "{puzzle} {c} {d} {on} {cap}");
                            let path = if n <= cap { full.clone() } else { None };
                            assert_eq!(pruned, path, "{puzzle} {c} {d} {on} {cap}");
                            cut += usize::from(n > cap);
                        }
                    }
                }
            });
        }
        assert!(chains > 1000 && cut > 1000, "{chains} chains, {cut} cut");
    }

    #[test]
    fn every_step_on_real_solve_paths_agrees_with_the_solution() {
        let mut found = 0;
        for (puzzle, _) in CYCLES {
            let grid: Grid = puzzle.parse().expect("a valid puzzle");
            let solution = crate::logic::unique_solution(&grid, &RateOptions::default())
                .expect("a unique solution");
            each_board(puzzle, |board| {
                let s = Start::new(State::from_board(board));
                let Some(d) = static_chains(&s, &Reaches::new(&s)) else {
                    return;
                };
                found += 1;
                for &(c, digit) in &d.eliminations {
                    assert_ne!(solution.cells()[usize::from(c)], digit, "{d:?}");
                }
                for &(c, digit) in &d.placements {
                    assert_eq!(solution.cells()[usize::from(c)], digit, "{d:?}");
                }
                assert!(!d.eliminations.is_empty() || !d.placements.is_empty());
            });
        }
        assert!(found > 10, "{found} steps");
    }
}
