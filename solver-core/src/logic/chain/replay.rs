//! A nested forcing chain's failing branch replayed with every fact recorded, so that it can
//! be written link by link: the propagation of [`super::propagate`] (singles, locked
//! candidates, inner contradiction searches) step for step, each fact with the facts it
//! follows from, each inner search that removes a candidate kept as an inner chain.

use super::closure::{self, Refute};
use super::deduction::fact as say;
use super::propagate::{PLUS, inner, refute};
use super::state::{State, cells, tables};
use super::trail::{Link, Told, contradiction, trail, write};

/// A recorded fact.
struct Node {
    fact: Told,
    parents: Vec<usize>,
    /// How deep in inner searches it was found (0: the branch itself).
    depth: usize,
    /// The nodes of the inner search's contradiction, for a candidate it removed.
    inner: Option<Vec<usize>>,
}

/// The facts recorded, with the node of each fact in each search under way.
struct Replay<'a> {
    /// The board the step is found on: facts rest on its candidates.
    board: &'a State,
    nodes: Vec<Node>,
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

    fn add(&mut self, fact: Told, parents: Vec<usize>, inner: Option<Vec<usize>>) -> usize {
        let depth = self.scopes.len() - 1;
        self.nodes.push(Node {
            fact,
            parents,
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

    fn place(&mut self, st: &mut State, (c, d): (usize, usize), parents: Vec<usize>) {
        let on = self.add((c, d, true), parents, None);
        for e in (0..9).filter(|&e| e != d && st.has(c, e)) {
            self.add((c, e, false), vec![on], None);
        }
        for q in cells(st.cand[d] & tables().peers[c]) {
            self.add((q, d, false), vec![on], None);
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
            if let Some(refute) = refute(level)
                && self.statics(st, refute)
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
                    self.place(st, (c, d), parents);
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
                        self.place(st, (p.trailing_zeros() as usize, d), parents);
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
                        self.add((q, d, false), parents.clone(), None);
                    }
                    st.cand[d] &= !gone;
                    progress = true;
                }
            }
        }
        progress
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
            self.place(&mut trial, (c, d), Vec::new());
            let outcome = self.propagate(&mut trial, inner);
            self.scopes.pop();
            let Err(clash) = outcome else {
                self.nodes.truncate(mark);
                continue;
            };
            let uses = self.outer_facts(&clash, mark);
            self.add((c, d, false), uses, Some(clash));
            st.eliminate(c, d);
            progress = true;
            self.propagate(st, inner.min(PLUS))?;
        }
        Ok(progress)
    }

    /// One pass of static chains ([`closure::pass`]): each candidate they remove or set is
    /// recorded resting on the facts of this branch its inner chain uses, then applied.
    fn statics(&mut self, st: &mut State, refute: Refute) -> bool {
        let changes = closure::pass(st, refute);
        let before = *st;
        let masks = closure::masks(&before);
        let shown = changes.removed.iter().map(|&(c, d)| (c, d, false));
        let shown = shown.chain(changes.set.iter().map(|&(c, d)| (c, d, true)));
        for (c, d, on) in shown.collect::<Vec<_>>() {
            let mark = self.nodes.len();
            self.scopes.push(Scope::new());
            let clash = self.static_chain(&before, &masks, (c, d, !on), refute);
            self.scopes.pop();
            let Some(clash) = clash else {
                self.nodes.truncate(mark);
                continue;
            };
            let uses = self.outer_facts(&clash, mark);
            let n = self.add((c, d, on), uses, Some(clash));
            if on {
                for e in (0..9).filter(|&e| e != d && st.has(c, e)) {
                    self.add((c, e, false), vec![n], None);
                }
            }
        }
        closure::apply(st, &changes)
    }

    /// The static chain from `start` on `board` to a contradiction, recorded in the current
    /// scope (the search [`closure::pass`] makes for each candidate); the contradiction's
    /// nodes, `None` if there is none.
    fn static_chain(
        &mut self,
        board: &State,
        masks: &[u16; 81],
        start: Told,
        refute: Refute,
    ) -> Option<Clash> {
        let root = self.add(start, Vec::new(), None);
        let mut next = root;
        while next < self.nodes.len() {
            let fact = self.nodes[next].fact;
            let mut found: Vec<Told> = Vec::new();
            closure::consequences(board, masks, fact, |c, d, on| found.push((c, d, on)));
            for (c, d, on) in found {
                let scope = self.scopes.last().expect("a scope per search");
                if scope.contains_key(&(c, d, on)) {
                    continue;
                }
                let parents = if on {
                    self.strong_parents(board, (c, d), fact)
                } else {
                    vec![next]
                };
                let n = self.add((c, d, on), parents, None);
                let scope = self.scopes.last().expect("a scope per search");
                if let Some(m) = scope.get(&(c, d, !on))
                    && (refute == Refute::Any || (c, d, !on) == start)
                {
                    return Some(vec![m, n]);
                }
            }
            next += 1;
        }
        None
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
                stack.extend(&self.nodes[n].parents);
            }
        }
        out.sort_unstable();
        out
    }

    /// The trail of the search at `depth` to the nodes `targets`, each inner chain it uses
    /// numbered after those already in `chains` and written there.
    fn told(&self, targets: &[usize], depth: usize, chains: &mut Vec<String>) -> String {
        let inside = |p: &usize| self.nodes[*p].depth >= depth;
        // A contradiction's facts from the enclosing branch were shown there.
        let targets: Vec<usize> = targets.iter().copied().filter(inside).collect();
        let mut links: Vec<Link> = trail(
            &targets,
            |n| self.nodes[n].fact,
            |n| {
                let mut list: Vec<usize> = self.nodes[n].parents.clone();
                // This search's own parents first, the latest as the one it follows from.
                list.retain(|p| inside(p));
                list.sort_unstable_by(|a, b| b.cmp(a));
                list
            },
        );
        for link in &mut links {
            let node = &self.nodes[link.node];
            link.outer = node
                .parents
                .iter()
                .filter(|p| !inside(p))
                .map(|&p| self.nodes[p].fact)
                .collect();
            if let Some(clash) = &node.inner {
                let (c, d, on) = node.fact;
                let inner = self.told(clash, depth + 1, chains);
                chains.push(format!(
                    "{} leads to {}: {inner}",
                    say(c, d, !on),
                    clash_name(&self.nodes, clash)
                ));
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
    /// SE's complexity of the contradiction `clash` of the search at `depth`: the facts each
    /// side of it rests on in that search (counted per side, as SE counts a contradiction's
    /// two chains), plus once each inner chain among them with its own complexity.
    fn complexity(&self, clash: &[usize], depth: usize) -> usize {
        let sides: Vec<&[usize]> = match clash {
            [a, b] if self.nodes[*a].fact.2 != self.nodes[*b].fact.2 => {
                vec![&clash[..1], &clash[1..]]
            }
            [rest @ .., last] => vec![rest, std::slice::from_ref(last)],
            [] => Vec::new(),
        };
        let mut inner_seen = vec![false; self.nodes.len()];
        let mut total = 0;
        for (k, side) in sides.iter().enumerate() {
            let mut seen = vec![false; self.nodes.len()];
            let mut stack = side.to_vec();
            // The empty cell or house: its last fact stands for the single the rest make.
            let mut count = usize::from(sides.len() == 2 && k == 0 && side.len() > 1);
            while let Some(n) = stack.pop() {
                if self.nodes[n].depth < depth || std::mem::replace(&mut seen[n], true) {
                    continue;
                }
                count += 1;
                stack.extend(&self.nodes[n].parents);
                if let Some(inner) = &self.nodes[n].inner
                    && !std::mem::replace(&mut inner_seen[n], true)
                {
                    count += self.complexity(inner, depth + 1);
                }
            }
            total += count;
        }
        total
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
        scopes: vec![Scope::new()],
    };
    let mut st = *board;
    if on {
        replay.place(&mut st, (c, d), Vec::new());
    } else {
        replay.add((c, d, false), Vec::new(), None);
        st.eliminate(c, d);
    }
    let clash = replay.propagate(&mut st, level).err()?;
    Some((replay, clash))
}

/// SE's complexity of the failing branch from assuming digit index `d` in `c` (`on`) or out
/// of it, propagated at `level` (see [`Replay::complexity`]); `None` if it does not fail.
pub(crate) fn branch_complexity(board: &State, (c, d, on): Told, level: u8) -> Option<usize> {
    let (replay, clash) = replay_failing(board, (c, d, on), level)?;
    Some(replay.complexity(&clash, 0))
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
    for (k, chain) in chains.iter().enumerate() {
        text.push_str(&format!(". Chain {}: {chain}", k + 1));
    }
    Some(text)
}
