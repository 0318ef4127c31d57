//! The fact graphs of many searches kept side by side, so that what a fact rests on in one
//! of them can be counted again without running its search again (multiple forcing chains
//! count the facts behind each common consequence of several assumptions, whose searches
//! have all run by then).

use std::cell::RefCell;

use super::implications::{self, Fact, Node, Search};
use super::spare;

/// Facts of a board, `(cell * 9 + digit) * 2 + on`.
const FACTS: usize = 81 * 9 * 2;

/// No fact's place in a list, in the `slots` of [`Kept::locate`].
pub(crate) const NO_SLOT: u16 = u16::MAX;

/// Where one search's graph lies in [`Kept`]: its nodes (their parent lists follow).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Graph {
    nodes: (u32, u32),
}

/// The graphs, nodes and parent lists each in one buffer (node indices made absolute).
pub(crate) struct Kept {
    nodes: Vec<Node>,
    /// The facts of `nodes`, as one list (outcomes hand them out as slices).
    facts: Vec<Fact>,
    parents: Vec<u32>,
    seen: Vec<u64>,
    stack: Vec<u32>,
}

/// A dropped [`Kept`]'s buffers: nodes, facts, parents.
type Buffers = (Vec<Node>, Vec<Fact>, Vec<u32>);

thread_local! {
    /// Buffers of a dropped [`Kept`], for the next one to fill: they grow to some hundred
    /// thousand nodes at every step of a hard puzzle.
    static SPARE: RefCell<Vec<Buffers>> = const { RefCell::new(Vec::new()) };
}

impl Drop for Kept {
    fn drop(&mut self) {
        let mut buffers = (
            std::mem::take(&mut self.nodes),
            std::mem::take(&mut self.facts),
            std::mem::take(&mut self.parents),
        );
        buffers.0.clear();
        buffers.1.clear();
        buffers.2.clear();
        spare::give(&SPARE, buffers);
    }
}

impl Kept {
    /// An empty store, with the buffers of a dropped one when the thread has one.
    pub(crate) fn new() -> Kept {
        let (nodes, facts, parents) = spare::take(&SPARE).unwrap_or_default();
        Kept {
            nodes,
            facts,
            parents,
            seen: vec![0; FACTS.div_ceil(64)],
            stack: Vec::new(),
        }
    }

    /// Keeps the graph of the search just run.
    pub(crate) fn keep(&mut self, search: &Search) -> Graph {
        let (nodes, parents) = search.graph();
        let (node0, parent0) = (self.nodes.len() as u32, self.parents.len() as u32);
        self.nodes.extend(nodes.iter().map(|&n| Node {
            first: n.first + parent0,
            ..n
        }));
        self.facts.extend(nodes.iter().map(|n| n.fact));
        self.parents.extend(parents.iter().map(|&p| p + node0));
        Graph {
            nodes: (node0, self.nodes.len() as u32),
        }
    }

    /// The facts of graph `g`, in the order its search reached them (each once: a search
    /// makes one node per fact).
    pub(crate) fn facts(&self, g: Graph) -> &[Fact] {
        &self.facts[g.nodes.0 as usize..g.nodes.1 as usize]
    }

    /// Puts in `found[k]` the node of graph `g` that reached each fact whose `slots` entry
    /// is `k` (the others' are [`NO_SLOT`]): one pass over the graph, where an index of it
    /// for a few facts would take a pass to fill and one to clear.
    pub(crate) fn locate(&self, g: Graph, slots: &[u16], found: &mut [u32]) {
        let from = g.nodes.0 as usize;
        for (i, &f) in (from..).zip(self.facts(g)) {
            if let Some(at) = found.get_mut(usize::from(slots[usize::from(f)])) {
                *at = i as u32;
            }
        }
    }

    /// The depth of node `i` (as [`Kept::locate`] gives it; see [`Node::depth`]): a lower
    /// bound of its [`Kept::ancestors`], known without a walk.
    pub(crate) fn depth(&self, i: u32) -> usize {
        usize::from(self.nodes[i as usize].depth)
    }

    /// How many different facts node `i` (as [`Kept::locate`] gives it) rests on in its
    /// graph, itself included, if `most` or fewer.
    pub(crate) fn ancestors(&mut self, i: u32, most: usize) -> Option<usize> {
        implications::ancestors_within(
            &self.nodes,
            &self.parents,
            &mut self.seen,
            &mut self.stack,
            i,
            most,
        )
    }
}

#[cfg(test)]
mod tests {
    use super::super::implications::{Rules, fact};
    use super::super::state::{Start, State};
    use super::*;
    use crate::logic::engine::{SOLVE_PATH_PUZZLES, each_board};

    #[test]
    fn a_kept_graph_counts_as_its_search_did() {
        let mut checked = 0;
        for puzzle in &SOLVE_PATH_PUZZLES[..2] {
            each_board(puzzle, |board| {
                let s = Start::new(State::from_board(board));
                let (mut search, mut kept) = (Search::new(), Kept::new());
                let starts: Vec<_> = s.candidates().into_iter().step_by(7).collect();
                let mut graphs = Vec::new();
                for &(c, d) in &starts {
                    for dynamic in [false, true] {
                        let rules = Rules {
                            cells: true,
                            dynamic,
                        };
                        search.run(&s, fact(c, d, dynamic), rules);
                        graphs.push((kept.keep(&search), fact(c, d, dynamic), rules));
                    }
                }
                // Searches run again after all are kept, so that each graph is read back
                // from among the others.
                for &(g, start, rules) in &graphs {
                    search.run(&s, start, rules);
                    // Every fact located at once, by its place in the graph's list.
                    let mut slots = vec![NO_SLOT; FACTS];
                    for (k, &f) in kept.facts(g).iter().enumerate() {
                        slots[usize::from(f)] = k as u16;
                    }
                    let mut found = vec![u32::MAX; kept.facts(g).len()];
                    kept.locate(g, &slots, &mut found);
                    let mut reached = 0;
                    for f in 0..FACTS as Fact {
                        let want = search.reached(f).map(|i| search.ancestors(i));
                        let slot = usize::from(slots[usize::from(f)]);
                        let node = found.get(slot).copied();
                        assert_eq!(node.is_some(), want.is_some(), "{puzzle} {start} {f}");
                        let (Some(i), Some(want)) = (node, want) else {
                            continue;
                        };
                        assert_eq!(kept.ancestors(i, want), Some(want), "{puzzle} {start} {f}");
                        assert_eq!(kept.ancestors(i, want - 1), None, "{puzzle} {start} {f}");
                        let depth = kept.depth(i);
                        assert!(depth <= want, "{puzzle} {start} {f}: {depth} {want}");
                        if !rules.dynamic {
                            assert_eq!(depth, want, "{puzzle} {start} {f}");
                        }
                        reached += 1;
                    }
                    assert_eq!(kept.facts(g).len(), reached);
                    checked += 1;
                }
            });
        }
        assert!(checked > 100, "{checked}");
    }
}
