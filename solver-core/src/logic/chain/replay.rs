//! A nested forcing chain's failing branch replayed with every fact recorded, so that it can
//! be written link by link: the propagation of [`super::propagate`] (singles, locked
//! candidates, inner contradiction searches) step for step, each fact with the facts it
//! follows from, each inner search that removes a candidate kept as an inner chain.

use std::collections::HashMap;
use std::ops::Range;

use super::closure::{self, Changes, Source, Statics};
use super::deduction::{cell_name, fact as say, house_name};
use super::propagate::{PLUS, inner, statics};
use super::state::{State, cells, tables};
use super::trail::{Link, Told, contradiction, trail, write};

/// A recorded fact.
struct Node {
    fact: Told,
    /// The facts it follows from, as a range of [`Replay::parents`].
    parents: Range<usize>,
    /// How deep in inner searches it was found (0: the branch itself).
    depth: usize,
    /// The inner search that showed it, by its place in [`Replay::inners`].
    inner: Option<usize>,
}

/// An inner search that shows facts of a branch.
struct Inner {
    /// The nodes it ends in: a contradiction's, or each chain's last.
    ends: Vec<usize>,
    /// For a multiple forcing chain, what it shows ("each digit of r1c1 leads to r2c2≠3"),
    /// each end counted as a chain of its own; `None` for a contradiction.
    each: Option<String>,
}

/// The facts recorded, with the node of each fact in each search under way.
struct Replay<'a> {
    /// The board the step is found on: facts rest on its candidates.
    board: &'a State,
    nodes: Vec<Node>,
    /// Every node's parents, one after another.
    parents: Vec<usize>,
    inners: Vec<Inner>,
    scopes: Vec<Scope>,
}

/// The node of each fact found in one search, by fact.
struct Scope(Vec<u32>);

impl Scope {
    fn new() -> Scope {
        Scope(vec![0; 81 * 9 * 2])
    }

    fn slot((c, d, on): Told) -> usize {
        (c * 9 + d) * 2 + usize::from(on)
    }

    fn get(&self, fact: &Told) -> Option<usize> {
        // Stored one up, so that zero is no node.
        self.0[Scope::slot(*fact)]
            .checked_sub(1)
            .map(|n| n as usize)
    }

    fn contains_key(&self, fact: &Told) -> bool {
        self.0[Scope::slot(*fact)] != 0
    }

    fn insert(&mut self, fact: Told, n: usize) {
        self.0[Scope::slot(fact)] = n as u32 + 1;
    }
}

/// A contradiction: the nodes it rests on.
type Clash = Vec<usize>;

impl Replay<'_> {
    fn find(&self, f: Told) -> Option<usize> {
        self.scopes.iter().rev().find_map(|m| m.get(&f))
    }

    /// The nodes node `n` follows from.
    fn parents(&self, n: usize) -> &[usize] {
        &self.parents[self.nodes[n].parents.clone()]
    }

    /// Forgets the nodes from `mark` on.
    fn truncate(&mut self, mark: usize) {
        if let Some(node) = self.nodes.get(mark) {
            self.parents.truncate(node.parents.start);
            self.nodes.truncate(mark);
        }
    }

    fn add(&mut self, fact: Told, parents: &[usize], inner: Option<usize>) -> usize {
        let depth = self.scopes.len() - 1;
        let start = self.parents.len();
        self.parents.extend_from_slice(parents);
        self.nodes.push(Node {
            fact,
            parents: start..self.parents.len(),
            depth,
            inner,
        });
        let n = self.nodes.len() - 1;
        if let Some(scope) = self.scopes.last_mut() {
            scope.insert(fact, n);
        }
        n
    }

    /// The nodes of the board's candidates of `cells` × `digits` shown false.
    fn offs(&self, set: u128, digits: u16) -> Vec<usize> {
        let mut out = Vec::new();
        for c in cells(set) {
            for d in (0..9).filter(|&d| digits >> d & 1 != 0) {
                if self.board.has(c, d)
                    && let Some(n) = self.find((c, d, false))
                {
                    out.push(n);
                }
            }
        }
        out
    }

    fn place(&mut self, st: &mut State, (c, d): (usize, usize), parents: &[usize]) {
        let on = self.add((c, d, true), parents, None);
        for e in (0..9).filter(|&e| e != d && st.has(c, e)) {
            self.add((c, e, false), &[on], None);
        }
        for q in cells(st.cand[d] & tables().peers[c]) {
            self.add((q, d, false), &[on], None);
        }
        st.place(c, d);
    }

    /// [`super::propagate::propagate`], recorded.
    fn propagate(&mut self, st: &mut State, level: u8) -> Result<(), Clash> {
        loop {
            self.singles(st)?;
            if level >= PLUS && self.locked(st) {
                continue;
            }
            if let Some(statics) = statics(level)
                && self.statics(st, statics)
            {
                continue;
            }
            if level >= 4 && self.nested(st, inner(level))? {
                continue;
            }
            return Ok(());
        }
    }

    fn singles(&mut self, st: &mut State) -> Result<(), Clash> {
        let t = tables();
        loop {
            let mut progress = false;
            for c in cells(st.open()) {
                let left = st.digits(c);
                if left == 0 {
                    return Err(self.offs(1 << c, 0x1ff));
                }
                if left.count_ones() == 1 {
                    let d = left.trailing_zeros() as usize;
                    let parents = self.offs(1 << c, 0x1ff & !(1 << d));
                    self.place(st, (c, d), &parents);
                    progress = true;
                }
            }
            if progress {
                continue;
            }
            for d in 0..9 {
                for &h in &t.houses {
                    if st.val[d] & h != 0 {
                        continue;
                    }
                    let p = st.cand[d] & h;
                    if p == 0 {
                        return Err(self.offs(h, 1 << d));
                    }
                    if p & (p - 1) == 0 {
                        let parents = self.offs(h & !p, 1 << d);
                        self.place(st, (p.trailing_zeros() as usize, d), &parents);
                        progress = true;
                    }
                }
            }
            if !progress {
                return Ok(());
            }
        }
    }

    fn locked(&mut self, st: &mut State) -> bool {
        let mut progress = false;
        for d in 0..9 {
            for &(bx, ln) in &tables().crossings {
                for (from, to) in [(bx, ln), (ln, bx)] {
                    let p = st.cand[d] & from;
                    let gone = st.cand[d] & to & !from;
                    if p == 0 || p & !to != 0 || gone == 0 {
                        continue;
                    }
                    let parents = self.offs(from & !to, 1 << d);
                    for q in cells(gone) {
                        self.add((q, d, false), &parents, None);
                    }
                    st.cand[d] &= !gone;
                    progress = true;
                }
            }
        }
        progress
    }

    /// An inner search ending in the nodes `ends` (see [`Inner`]), by number.
    fn inner(&mut self, ends: Vec<usize>, each: Option<String>) -> usize {
        self.inners.push(Inner { ends, each });
        self.inners.len() - 1
    }

    /// One pass of inner searches at `inner`: a candidate whose truth collapses the board is
    /// removed, resting on the facts of this branch its inner chain uses.
    fn nested(&mut self, st: &mut State, inner: u8) -> Result<bool, Clash> {
        let mut progress = false;
        for (c, d) in st.candidates() {
            if !st.has(c, d) {
                continue;
            }
            let mark = self.nodes.len();
            let mut trial = *st;
            self.scopes.push(Scope::new());
            self.place(&mut trial, (c, d), &[]);
            let outcome = self.propagate(&mut trial, inner);
            self.scopes.pop();
            let Err(clash) = outcome else {
                self.truncate(mark);
                continue;
            };
            let uses = self.outer_facts(&clash, mark);
            let id = self.inner(clash, None);
            self.add((c, d, false), &uses, Some(id));
            st.eliminate(c, d);
            progress = true;
            self.propagate(st, inner.min(PLUS))?;
        }
        Ok(progress)
    }

    /// One pass of static chains ([`closure::pass`]): each candidate they remove or set is
    /// recorded resting on the facts of this branch its inner chain uses, then applied.
    fn statics(&mut self, st: &mut State, statics: Statics) -> bool {
        let changes = closure::pass(st, statics);
        let before = *st;
        let masks = closure::masks(&before);
        if !changes.common.is_empty() {
            self.multiples(&before, &masks, &changes);
            return closure::apply(st, &changes);
        }
        let shown = changes.removed.iter().map(|&(c, d)| (c, d, false));
        let shown = shown.chain(changes.set.iter().map(|&(c, d)| (c, d, true)));
        for (c, d, on) in shown.collect::<Vec<_>>() {
            let mark = self.nodes.len();
            self.scopes.push(Scope::new());
            let clash = self.static_chain(&before, &masks, (c, d, !on));
            self.scopes.pop();
            let Some(clash) = clash else {
                self.truncate(mark);
                continue;
            };
            let uses = self.outer_facts(&clash, mark);
            let id = self.inner(clash, None);
            let n = self.add((c, d, on), &uses, Some(id));
            if on {
                for e in (0..9).filter(|&e| e != d && st.has(c, e)) {
                    self.add((c, e, false), &[n], None);
                }
            }
        }
        closure::apply(st, &changes)
    }

    /// The static chain from `start` on `board` to its own opposite, recorded in the current
    /// scope (the search [`closure::pass`] makes for each candidate); the contradiction's
    /// nodes, `None` if there is none.
    fn static_chain(&mut self, board: &State, masks: &[u16; 81], start: Told) -> Option<Clash> {
        let root = self.add(start, &[], None);
        let mut next = root;
        let mut found: Vec<Told> = Vec::new();
        while next < self.nodes.len() {
            let fact = self.nodes[next].fact;
            found.clear();
            closure::consequences(board, masks, fact, |c, d, on| found.push((c, d, on)));
            for &(c, d, on) in &found {
                let scope = self.scopes.last().expect("a scope per search");
                if scope.contains_key(&(c, d, on)) {
                    continue;
                }
                let n = if on {
                    let parents = self.strong_parents(board, (c, d), fact);
                    self.add((c, d, on), &parents, None)
                } else {
                    self.add((c, d, on), &[next], None)
                };
                let scope = self.scopes.last().expect("a scope per search");
                if let Some(m) = scope.get(&(c, d, !on))
                    && (c, d, !on) == start
                {
                    return Some(vec![m, n]);
                }
            }
            next += 1;
        }
        None
    }

    /// Records a pass of multiple forcing chains: each candidate removed rests on the source
    /// whose chains to it are shortest in all (SE applies its hints shortest first, and a
    /// candidate once), and every removal of one source's fact on the same inner chains.
    fn multiples(&mut self, board: &State, masks: &[u16; 81], changes: &Changes) {
        let mut trees: HashMap<(usize, usize), Tree> = HashMap::new();
        // For each candidate removed: the least total length, and the hint that has it.
        let mut best: HashMap<(usize, usize), (usize, usize)> = HashMap::new();
        for (k, &((c, d, on), source)) in changes.common.iter().enumerate() {
            let mut length = 0;
            for start in source.starts(board) {
                let tree = trees
                    .entry(start)
                    .or_insert_with(|| Tree::new(board, masks, start));
                length += tree.depth(fact_slot((c, d, on))) + 1;
            }
            let gone: Vec<(usize, usize)> = if on {
                (0..9)
                    .filter(|&e| e != d && board.has(c, e))
                    .map(|e| (c, e))
                    .collect()
            } else {
                vec![(c, d)]
            };
            for g in gone {
                let entry = best.entry(g).or_insert((length, k));
                if length < entry.0 {
                    *entry = (length, k);
                }
            }
        }
        let mut chosen: Vec<(usize, (usize, usize))> =
            best.into_iter().map(|(g, (_, k))| (k, g)).collect();
        chosen.sort_unstable();
        let mut at = 0;
        while at < chosen.len() {
            let k = chosen[at].0;
            let (fact, source) = changes.common[k];
            let mark = self.nodes.len();
            let mut ends = Vec::new();
            for start in source.starts(board) {
                self.scopes.push(Scope::new());
                let tree = &trees[&start];
                let path = tree.path(fact_slot(fact));
                ends.push(self.record_path(board, source, &path));
                self.scopes.pop();
            }
            let uses = self.outer_facts(&ends, mark);
            let label = format!(
                "{} leads to {}",
                source_name(source),
                say(fact.0, fact.1, fact.2)
            );
            let id = self.inner(ends, Some(label));
            while at < chosen.len() && chosen[at].0 == k {
                let (c, d) = chosen[at].1;
                self.add((c, d, false), &uses, Some(id));
                at += 1;
            }
        }
    }

    /// Records one static chain, its facts `path` from the assumption on, in the current
    /// scope; its last node.
    fn record_path(&mut self, board: &State, source: Source, path: &[Told]) -> usize {
        let (c, d, _) = path[0];
        let hidden = match source {
            Source::Cell(_) => self.offs(1 << c, 0x1ff & !(1 << d)),
            Source::Region(house, _) => self.offs(house & !(1 << c), 1 << d),
        };
        let mut last = self.add(path[0], &hidden, None);
        for k in 1..path.len() {
            let (c, d, on) = path[k];
            last = if on {
                let parents = self.strong_parents(board, (c, d), path[k - 1]);
                self.add((c, d, on), &parents, None)
            } else {
                self.add((c, d, on), &[last], None)
            };
        }
        last
    }

    /// The facts a static strong link to `(c, d)` true rests on: every other candidate of
    /// its cell, or every other place of its digit in the house of the false fact `from`,
    /// shown false.
    fn strong_parents(&self, board: &State, (c, d): (usize, usize), from: Told) -> Vec<usize> {
        let (fc, fd, _) = from;
        if fc == c {
            return self.offs(1 << c, 0x1ff & !(1 << d));
        }
        let house = tables().house_sets[c]
            .into_iter()
            .find(|h| h >> fc & 1 != 0 && (board.cand[fd] & h).count_ones() == 2)
            .unwrap_or(0);
        self.offs(house & !(1 << c), 1 << d)
    }

    /// The nodes before `mark` (this branch's) that the nodes `from` rest on, stopping there.
    fn outer_facts(&self, from: &[usize], mark: usize) -> Vec<usize> {
        let mut seen = vec![false; self.nodes.len()];
        let mut stack = from.to_vec();
        let mut out = Vec::new();
        while let Some(n) = stack.pop() {
            if std::mem::replace(&mut seen[n], true) {
                continue;
            }
            if n < mark {
                out.push(n);
            } else {
                stack.extend(self.parents(n));
            }
        }
        out.sort_unstable();
        out
    }

    /// The trail of the search at `depth` to the nodes `targets`, each inner chain it uses
    /// numbered after those already in `chains` and written there.
    fn told(&self, targets: &[usize], depth: usize, chains: &mut Vec<(usize, String)>) -> String {
        let inside = |p: &usize| self.nodes[*p].depth >= depth;
        // A contradiction's facts from the enclosing branch were shown there.
        let targets: Vec<usize> = targets.iter().copied().filter(inside).collect();
        let mut links: Vec<Link> = trail(
            &targets,
            |n| self.nodes[n].fact,
            |n| {
                let mut list: Vec<usize> = self.parents(n).to_vec();
                // This search's own parents first, the latest as the one it follows from.
                list.retain(|p| inside(p));
                list.sort_unstable_by(|a, b| b.cmp(a));
                list
            },
        );
        for link in &mut links {
            let node = &self.nodes[link.node];
            // An assumption starts its run: what it rests on (a multiple chain's cell or
            // house as the branch left it) is the chain's, not its own.
            let parents = self.parents(link.node);
            if parents.iter().any(inside) {
                link.outer = parents
                    .iter()
                    .filter(|p| !inside(p))
                    .map(|&p| self.nodes[p].fact)
                    .collect();
            }
            if let Some(id) = node.inner {
                if let Some(k) = chains.iter().position(|(seen, _)| *seen == id) {
                    link.chain = Some(k + 1);
                    link.outer.clear();
                    continue;
                }
                let (c, d, on) = node.fact;
                let Inner { ends, each } = &self.inners[id];
                let inner = if each.is_some() {
                    // Each chain of a multiple forcing chain is a branch of its own.
                    let told: Vec<String> = ends
                        .iter()
                        .map(|&e| self.told(&[e], depth + 1, chains))
                        .collect();
                    told.join("; ")
                } else {
                    self.told(ends, depth + 1, chains)
                };
                let said = each.clone().unwrap_or_else(|| {
                    format!(
                        "{} leads to {}",
                        say(c, d, !on),
                        clash_name(&self.nodes, ends)
                    )
                });
                chains.push((id, format!("{said}: {inner}")));
                link.chain = Some(chains.len());
                link.outer.clear();
            }
        }
        write(&links)
    }
}

/// The contradiction of nodes `clash` for people (see [`contradiction`]).
fn clash_name(nodes: &[Node], clash: &[usize]) -> String {
    let facts: Vec<Told> = clash.iter().map(|&n| nodes[n].fact).collect();
    contradiction(&facts)
}

impl Replay<'_> {
    /// SE's complexity of the inner search ending in `ends` at `depth` (`each`: a multiple
    /// forcing chain's, else a contradiction's): the facts each side of a contradiction, or
    /// each chain, rests on in that search (counted per side, as SE counts a contradiction's
    /// two chains), plus once each inner search among them with its own complexity.
    fn complexity(&self, ends: &[usize], each: bool, depth: usize) -> usize {
        let sides: Vec<&[usize]> = match ends {
            _ if each => ends.iter().map(std::slice::from_ref).collect(),
            [a, b] if self.nodes[*a].fact.2 != self.nodes[*b].fact.2 => {
                vec![&ends[..1], &ends[1..]]
            }
            [rest @ .., last] => vec![rest, std::slice::from_ref(last)],
            [] => Vec::new(),
        };
        let mut inner_seen = vec![false; self.inners.len()];
        let mut total = 0;
        for (k, side) in sides.iter().enumerate() {
            let mut seen = vec![false; self.nodes.len()];
            let mut stack = side.to_vec();
            // The empty cell or house: its last fact stands for the single the rest make.
            let mut count = usize::from(!each && sides.len() == 2 && k == 0 && side.len() > 1);
            while let Some(n) = stack.pop() {
                if self.nodes[n].depth < depth || std::mem::replace(&mut seen[n], true) {
                    continue;
                }
                count += 1;
                stack.extend(self.parents(n));
                if let Some(id) = self.nodes[n].inner
                    && !std::mem::replace(&mut inner_seen[id], true)
                {
                    let inner = &self.inners[id];
                    count += self.complexity(&inner.ends, inner.each.is_some(), depth + 1);
                }
            }
            total += count;
        }
        total
    }
}

/// How people name a multiple forcing chain's source.
fn source_name(source: Source) -> String {
    match source {
        Source::Cell(c) => format!("each digit of {}", cell_name(c)),
        Source::Region(house, d) => {
            let h = (0..27).find(|&h| tables().houses[h] == house).unwrap_or(0);
            format!("each place of digit {} in {}", d + 1, house_name(h))
        }
    }
}

/// A fact's slot in a [`Tree`].
fn fact_slot((c, d, on): Told) -> usize {
    (c * 9 + d) * 2 + usize::from(on)
}

/// What one assumption leads to by static links, searched as SE's static chains search
/// (true facts first), each fact with the one it was first reached from.
struct Tree {
    /// The slot each fact was reached from, [`Tree::NONE`] if unreached (the root its own).
    from: Vec<u16>,
}

impl Tree {
    const NONE: u16 = u16::MAX;

    fn new(board: &State, masks: &[u16; 81], (c, d): (usize, usize)) -> Tree {
        let mut from = vec![Tree::NONE; 81 * 9 * 2];
        let root = fact_slot((c, d, true));
        from[root] = root as u16;
        let (mut on, mut off) = (
            std::collections::VecDeque::from([root]),
            std::collections::VecDeque::new(),
        );
        while let Some(f) = on.pop_front().or_else(|| off.pop_front()) {
            let fact = (f / 18, f / 2 % 9, f & 1 == 1);
            closure::consequences(board, masks, fact, |c, d, is| {
                let g = fact_slot((c, d, is));
                if from[g] == Tree::NONE {
                    from[g] = f as u16;
                    if is {
                        on.push_back(g)
                    } else {
                        off.push_back(g)
                    }
                }
            });
        }
        Tree { from }
    }

    /// The facts from the root to the fact in `slot` (reached).
    fn path(&self, slot: usize) -> Vec<Told> {
        let mut out = vec![slot];
        let mut at = slot;
        while usize::from(self.from[at]) != at {
            at = usize::from(self.from[at]);
            out.push(at);
        }
        out.iter()
            .rev()
            .map(|&f| (f / 18, f / 2 % 9, f & 1 == 1))
            .collect()
    }

    /// How many links from the root to the fact in `slot`.
    fn depth(&self, slot: usize) -> usize {
        let (mut at, mut n) = (slot, 0);
        while usize::from(self.from[at]) != at {
            at = usize::from(self.from[at]);
            n += 1;
        }
        n
    }
}

/// The replay of assuming digit index `d` in `c` (`on`) or out of it, propagated at `level`,
/// with the clash it ends in; `None` if the branch does not fail.
fn replay_failing<'a>(
    board: &'a State,
    (c, d, on): Told,
    level: u8,
) -> Option<(Replay<'a>, Clash)> {
    let mut replay = Replay {
        board,
        nodes: Vec::new(),
        parents: Vec::new(),
        inners: Vec::new(),
        scopes: vec![Scope::new()],
    };
    let mut st = *board;
    if on {
        replay.place(&mut st, (c, d), &[]);
    } else {
        replay.add((c, d, false), &[], None);
        st.eliminate(c, d);
    }
    let clash = replay.propagate(&mut st, level).err()?;
    Some((replay, clash))
}

/// SE's complexity of the failing branch from assuming digit index `d` in `c` (`on`) or out
/// of it, propagated at `level` (see [`Replay::complexity`]); `None` if it does not fail.
pub(crate) fn branch_complexity(board: &State, (c, d, on): Told, level: u8) -> Option<usize> {
    let (replay, clash) = replay_failing(board, (c, d, on), level)?;
    Some(replay.complexity(&clash, false, 0))
}

/// The failing branch from assuming digit index `d` in `c` (`on`) or out of it, propagated at
/// `level`, for people: "r1c1=5 leads to no digit left in r5c5: trail. Chain 1: ...", each
/// inner chain numbered as the trail names it; `None` if the branch does not fail.
pub(crate) fn failing_branch(board: &State, (c, d, on): Told, level: u8) -> Option<String> {
    let (replay, clash) = replay_failing(board, (c, d, on), level)?;
    let mut chains = Vec::new();
    let outer = replay.told(&clash, 0, &mut chains);
    let mut text = format!(
        "{} leads to {}: {outer}",
        say(c, d, on),
        clash_name(&replay.nodes, &clash)
    );
    for (k, (_, chain)) in chains.iter().enumerate() {
        text.push_str(&format!(". Chain {}: {chain}", k + 1));
    }
    Some(text)
}
