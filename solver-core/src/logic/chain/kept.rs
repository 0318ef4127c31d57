//! The fact graphs of many searches kept side by side, so that what a fact rests on in one
//! of them can be counted again without running its search again (multiple forcing chains
//! count the facts behind each common consequence of several assumptions, whose searches
//! have all run by then).

use std::cell::RefCell;

use super::implications::{self, Fact, Node, Search};
use super::spare;

/// Facts of a board, `(cell * 9 + digit) * 2 + on`.
const FACTS: usize = 81 * 9 * 2;
const NONE: u32 = u32::MAX;

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
    /// Each node's longest line of parents back to its graph's assumption, itself
    /// included: distinct facts it rests on, so at most its ancestor count. Worked out for
    /// a graph when first asked for (most graphs never are); 0 until then.
    depths: Vec<u16>,
    parents: Vec<u32>,
    /// The first node of each fact in the graph [`Kept::open`] last indexed, or [`NONE`].
    index: Vec<u32>,
    open: Option<Graph>,
    seen: Vec<u64>,
    stack: Vec<u32>,
}

/// A dropped [`Kept`]'s buffers: nodes, facts, depths, parents, index.
type Buffers = (Vec<Node>, Vec<Fact>, Vec<u16>, Vec<u32>, Vec<u32>);

thread_local! {
    /// Buffers of a dropped [`Kept`], for the next one to fill: they grow to some hundred
    /// thousand nodes at every step of a hard puzzle.
    static SPARE: RefCell<Vec<Buffers>> = const { RefCell::new(Vec::new()) };
}

impl Drop for Kept {
    fn drop(&mut self) {
        self.close();
        let mut buffers = (
            std::mem::take(&mut self.nodes),
            std::mem::take(&mut self.facts),
            std::mem::take(&mut self.depths),
            std::mem::take(&mut self.parents),
            std::mem::take(&mut self.index),
        );
        buffers.0.clear();
        buffers.1.clear();
        buffers.2.clear();
        buffers.3.clear();
        spare::give(&SPARE, buffers);
    }
}

impl Kept {
    /// An empty store, with the buffers of a dropped one when the thread has one (its
    /// index all [`NONE`] again).
    pub(crate) fn new() -> Kept {
        let (nodes, facts, depths, parents, index) = spare::take(&SPARE).unwrap_or_else(|| {
            let none = vec![NONE; FACTS];
            (Vec::new(), Vec::new(), Vec::new(), Vec::new(), none)
        });
        Kept {
            nodes,
            facts,
            depths,
            parents,
            index,
            open: None,
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
        self.depths.resize(self.nodes.len(), 0);
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

    /// Indexes the facts of graph `g` (the first node of each, as its search found them).
    fn open(&mut self, g: Graph) {
        if self.open == Some(g) {
            return;
        }
        self.close();
        for i in g.nodes.0..g.nodes.1 {
            let slot = &mut self.index[usize::from(self.facts[i as usize])];
            if *slot == NONE {
                *slot = i;
            }
        }
        self.open = Some(g);
    }

    /// Works out the depths of graph `g`'s nodes, unless done (its assumption's is 1 then):
    /// parents come before their children.
    fn deepen(&mut self, g: Graph) {
        let (from, to) = (g.nodes.0 as usize, g.nodes.1 as usize);
        if from == to || self.depths[from] != 0 {
            return;
        }
        for i in from..to {
            let n = self.nodes[i];
            let first = n.first as usize;
            let own = &self.parents[first..first + usize::from(n.count)];
            let deepest = own.iter().map(|&p| self.depths[p as usize]).max();
            self.depths[i] = deepest.unwrap_or(0) + 1;
        }
    }

    /// Clears the index of the graph [`Kept::open`] last indexed, if any.
    fn close(&mut self) {
        if let Some(old) = self.open.take() {
            for i in old.nodes.0..old.nodes.1 {
                self.index[usize::from(self.facts[i as usize])] = NONE;
            }
        }
    }

    /// A lower bound of [`Kept::ancestors`], found without a walk, if `g` reached `target`.
    pub(crate) fn depth(&mut self, g: Graph, target: Fact) -> Option<usize> {
        self.deepen(g);
        self.open(g);
        let i = self.index[usize::from(target)];
        (i != NONE).then(|| usize::from(self.depths[i as usize]))
    }

    /// How many different facts `target` rests on in graph `g`, itself included (as
    /// [`Search::ancestors`] of the node that reached it), if `g` reached it.
    pub(crate) fn ancestors(&mut self, g: Graph, target: Fact) -> Option<usize> {
        self.open(g);
        let i = self.index[usize::from(target)];
        if i == NONE {
            return None;
        }
        Some(implications::ancestors(
            &self.nodes,
            &self.parents,
            &mut self.seen,
            &mut self.stack,
            i,
        ))
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
                    let mut reached = 0;
                    for f in 0..FACTS as Fact {
                        let want = search.reached(f).map(|i| search.ancestors(i));
                        assert_eq!(kept.ancestors(g, f), want, "{puzzle} {start} {f}");
                        let depth = kept.depth(g, f);
                        assert_eq!(depth.is_some(), want.is_some());
                        assert!(depth <= want, "{puzzle} {start} {f}: {depth:?} {want:?}");
                        if !rules.dynamic {
                            assert_eq!(depth, want, "{puzzle} {start} {f}");
                        }
                        reached += usize::from(want.is_some());
                    }
                    assert_eq!(kept.facts(g).len(), reached);
                    checked += 1;
                }
            });
        }
        assert!(checked > 100, "{checked}");
    }
}
