//! A branch of a chain written link by link for players: the facts an end rests on, each
//! after the facts it follows from, so that every link can be checked on the grid.
//!
//! A branch whose facts alternate true and false, each following from the one before alone,
//! is an alternating inference chain and is written in Eureka notation,
//! `(4)r1c2-(4)r1c7=(4)r5c7` (`=`: the fact before is false, so this one is true; `-`: the
//! fact before is true, so this one is false). Any other branch (dynamic chains, whose
//! facts may rest on several earlier ones) is written fact by fact:
//! `r2c8=5 → r2c3≠5 → r4c3=5 (with r7c3≠5), r2c8=5 → r9c8≠5`: each arrow's fact follows
//! from the fact before it together with those named `with`, all shown earlier in the
//! branch; a fact after `, ` was shown earlier and starts a new run.

use super::deduction::{cell_name, fact as say, house_name};

/// A fact: cell, digit index, whether the digit is in the cell.
pub(crate) type Told = (usize, usize, bool);

/// One fact of a trail and the earlier facts of the trail it follows from (indices into the
/// trail): the first is the one it follows from directly, the rest are those it also rests on.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Link {
    /// The fact.
    pub(crate) fact: Told,
    /// Where in the trail the facts it follows from are.
    pub(crate) from: Vec<usize>,
    /// The graph's node of the fact.
    pub(crate) node: usize,
    /// Facts of an enclosing branch it also rests on (an inner chain's links).
    pub(crate) outer: Vec<Told>,
    /// The inner chain that shows it, by number, where one does (nested chains).
    pub(crate) chain: Option<usize>,
}

/// The facts the `targets` rest on in a graph of facts (node `i`'s fact, and its parents:
/// earlier nodes, the one it follows from directly first), each after its parents and, where
/// it can be, right after the one it follows from directly.
pub(crate) fn trail(
    targets: &[usize],
    fact: impl Fn(usize) -> Told,
    parents: impl Fn(usize) -> Vec<usize>,
) -> Vec<Link> {
    const NONE: usize = usize::MAX;
    let size = targets.iter().max().map_or(0, |&t| t + 1);
    // Where each node went in the trail.
    let mut at = vec![NONE; size];
    let mut out: Vec<Link> = Vec::new();
    let mut stack: Vec<(usize, bool)> = targets.iter().rev().map(|&t| (t, false)).collect();
    while let Some((n, expanded)) = stack.pop() {
        if at[n] != NONE {
            continue;
        }
        let from = parents(n);
        if expanded {
            at[n] = out.len();
            out.push(Link {
                fact: fact(n),
                from: from.iter().map(|&p| at[p]).collect(),
                node: n,
                outer: Vec::new(),
                chain: None,
            });
            continue;
        }
        stack.push((n, true));
        // The direct parent's run last, so that it ends right before this fact.
        if let Some((&direct, rest)) = from.split_first() {
            stack.push((direct, false));
            stack.extend(rest.iter().rev().map(|&p| (p, false)));
        }
    }
    out
}

/// A trail for people (see the module's notation).
pub(crate) fn write(links: &[Link]) -> String {
    let chained = links.len() > 1
        && links.iter().enumerate().skip(1).all(|(k, l)| {
            l.from == [k - 1] && l.fact.2 != links[k - 1].fact.2 && l.outer.is_empty()
        })
        && links.iter().all(|l| l.chain.is_none());
    if chained {
        return eureka(links.iter().map(|l| l.fact));
    }
    let mut out = String::new();
    for (k, link) in links.iter().enumerate() {
        let (c, d, on) = link.fact;
        if let Some(n) = link.chain {
            // Shown by an inner chain, written after the branch: a run of its own.
            if k > 0 {
                out.push_str(", ");
            }
            out.push_str(&format!("{} [chain {n}]", say(c, d, on)));
            continue;
        }
        match link.from.split_first() {
            None if k == 0 => {}
            Some((&direct, _)) if direct + 1 == k => out.push_str(" → "),
            Some((&direct, _)) => {
                let (q, e, was) = links[direct].fact;
                out.push_str(&format!(", {} → ", say(q, e, was)));
            }
            // A second fact with nothing before it: a second assumption (never made).
            None => out.push_str(", "),
        }
        out.push_str(&say(c, d, on));
        let with: Vec<String> = link
            .from
            .iter()
            .skip(1)
            .map(|&p| links[p].fact)
            .chain(link.outer.iter().copied())
            .map(|(q, e, was)| say(q, e, was))
            .collect();
        if !with.is_empty() {
            out.push_str(&format!(" (with {})", with.join(", ")));
        }
    }
    out
}

/// Facts that alternate true and false in Eureka notation: `(4)r1c2-(4)r1c7=(4)r5c7`.
pub(crate) fn eureka(facts: impl Iterator<Item = Told>) -> String {
    let mut out = String::new();
    for (i, (c, d, on)) in facts.enumerate() {
        if i > 0 {
            // Off then on: a strong link; on then off: a weak one.
            out.push(if on { '=' } else { '-' });
        }
        out.push_str(&format!("({}){}", d + 1, cell_name(c)));
    }
    out
}

/// The candidates (cell, digit 1..=9) the trails pass through, sorted.
pub(crate) fn support(trails: &[Vec<Link>]) -> Vec<(u16, u8)> {
    let mut out: Vec<(u16, u8)> = trails
        .iter()
        .flatten()
        .map(|l| (l.fact.0 as u16, l.fact.1 as u8 + 1))
        .collect();
    out.sort_unstable();
    out.dedup();
    out
}

/// The contradiction that facts make, for people: "both r5c5=3 and r5c5≠3", "no digit left
/// in r5c5", "no place left for digit 3 in row 5" (the facts false ones of one house).
pub(crate) fn contradiction(facts: &[Told]) -> String {
    let Some(&(c, d, _)) = facts.first() else {
        return String::from("a contradiction");
    };
    if facts.iter().any(|f| f.2) {
        return format!("both {} and {}", say(c, d, true), say(c, d, false));
    }
    if facts.iter().all(|f| f.0 == c) {
        return format!("no digit left in {}", cell_name(c));
    }
    let set: u128 = facts.iter().fold(0, |m, f| m | 1 << f.0);
    let houses = &super::state::tables().houses;
    (0..27)
        .find(|&h| set & !houses[h] == 0)
        .map_or(String::from("a contradiction"), |h| {
            format!("no place left for digit {} in {}", d + 1, house_name(h))
        })
}

/// Branches for people, each a trail, `; ` between them.
pub(crate) fn branches(trails: &[Vec<Link>]) -> String {
    let told: Vec<String> = trails.iter().map(|t| write(t)).collect();
    told.join("; ")
}

#[cfg(test)]
pub(crate) mod check;

#[cfg(test)]
mod tests {
    use super::*;

    /// A graph: each node's fact and parents.
    fn graph(nodes: &[(Told, &[usize])]) -> (impl Fn(usize) -> Told, impl Fn(usize) -> Vec<usize>) {
        let facts: Vec<Told> = nodes.iter().map(|n| n.0).collect();
        let parents: Vec<Vec<usize>> = nodes.iter().map(|n| n.1.to_vec()).collect();
        (move |i| facts[i], move |i| parents[i].clone())
    }

    #[test]
    fn a_chain_of_single_links_is_written_in_eureka_notation() {
        // r1c2=4 -> r1c7≠4 -> r5c7=4 -> r5c3≠4, and a node off the chain.
        let (f, p) = graph(&[
            ((1, 3, true), &[]),
            ((6, 3, false), &[0]),
            ((80, 0, false), &[0]),
            ((42, 3, true), &[1]),
            ((38, 3, false), &[3]),
        ]);
        let t = trail(&[4], f, p);
        assert_eq!(write(&t), "(4)r1c2-(4)r1c7=(4)r5c7-(4)r5c3");
    }

    #[test]
    fn facts_resting_on_several_are_written_with_them() {
        // r2c8=5 removes 5 from r2c3 and r9c8; r4c3=5 rests on r2c3≠5 and r9c8≠5 (as if
        // they shared a house); r4c3=5 removes 5 from r4c9.
        let (f, p) = graph(&[
            ((16, 4, true), &[]),
            ((11, 4, false), &[0]),
            ((79, 4, false), &[0]),
            ((29, 4, true), &[1, 2]),
            ((35, 4, false), &[3]),
        ]);
        let t = trail(&[4], f, p);
        assert_eq!(
            write(&t),
            "r2c8=5 → r9c8≠5, r2c8=5 → r2c3≠5 → r4c3=5 (with r9c8≠5) → r4c9≠5"
        );
        assert!(
            t.iter()
                .enumerate()
                .all(|(k, l)| l.from.iter().all(|&p| p < k))
        );
    }
}
