//! The shapes of a phase's only move that a plain loop over a fixed set of
//! sites finds, worked out once when the rules are compiled: listed or
//! drawn by a least count ([`Listed`]), or asked at each site for whether
//! a player can move ([`Asked`]); `movegen/sites.rs` runs the first (and
//! `one_site`'s loop), `movegen/any.rs` the second.

use super::expr::{self, SetOpnd};
use super::{Choice, ChoiceDomain, MoveProg};

/// A phase's only move when it chooses a site of a set fixed for each
/// player (a declared set, the mover's sites of a kind, or a set that is a
/// function of the mover alone: `tables.rs`), with no `where`
/// but a least count (`count(h) > 1`): its candidates are that set's sites
/// (those holding counters, if it sows them; that many, with such a
/// `where`), drawn from without the general search (`movegen::draw_move`)
/// and, when the move needs no trial, listed so (`movegen::legal_moves`).
#[derive(Clone)]
pub(crate) struct Listed {
    pub def: u16,
    /// The set, by the player to move.
    pub sets: Box<[u16]>,
    /// What a site must hold (see [`MoveProg::least_count`]).
    pub least: Option<i32>,
}

/// A phase's only move that chooses one site and needs no trial (see
/// [`super::Program::asked`]); `sets`, for each player to move, when its
/// `where` is asked at each site of a fixed set with nothing to decide
/// first.
pub(crate) struct Asked {
    pub def: u16,
    pub sets: Option<Box<[u16]>>,
    /// When its `where` has a waiver that leaves a least count while it
    /// holds (a rule that a player must feed an opponent left empty:
    /// `count(h) > 0 and (count(every pit of opponent(mover)) > 0 or
    /// ...)`): the set for each player and that count (see
    /// `movegen/any.rs`'s `any_waived`).
    pub waived: Option<Listed>,
}

impl Listed {
    pub(super) fn new(moves: &[MoveProg], d: u16, np: usize) -> Option<Listed> {
        let def = &moves[d as usize];
        let c = def.choices.first().filter(|c| def.one_site && c.as_written())?;
        let least = def.least_count(c, c.filter.as_ref())?;
        Some(Listed { def: d, sets: Listed::new_sets(c, np)?, least })
    }

    /// The fixed set choice `c` ranges over, for each player to move.
    fn new_sets(c: &Choice, np: usize) -> Option<Box<[u16]>> {
        Some(match &c.domain {
            ChoiceDomain::Set(SetOpnd::Fixed(id)) => vec![*id; np].into(),
            ChoiceDomain::Set(SetOpnd::OfPlayer(ids, expr::Leaf::Mover)) if ids.len() >= np => ids.clone(),
            // `opponent` is for games of two players.
            ChoiceDomain::Set(SetOpnd::OfPlayer(ids, expr::Leaf::Opponent)) if np == 2 && ids.len() >= 2 => {
                [ids[1], ids[0]].into()
            }
            ChoiceDomain::Set(SetOpnd::OfPlayer(ids, expr::Leaf::Const(pl))) => {
                vec![*ids.get(*pl as usize)?; np].into()
            }
            _ => return None,
        })
    }

    /// The phase's only move `d` when whether a player can move is found
    /// by its loop over the sites alone (see [`super::Program::asked`]).
    pub(super) fn asked(moves: &[MoveProg], d: u16, np: usize) -> Option<Asked> {
        let def = &moves[d as usize];
        if !def.one_site || def.needs_trial {
            return None;
        }
        // The loop of `one_site` that asks the `where` at each site, with
        // nothing to decide first: its choice is as written (no guard,
        // waiver or cases), not listed by a least count, not asked by
        // count or narrowed.
        let c = &def.choices[0];
        let plain = c.filter.is_some()
            && c.as_written()
            && def.least_count(c, c.filter.as_ref()).is_none()
            && !c.counted
            && c.narrow.is_none();
        let sets = plain.then(|| Listed::new_sets(c, np)).flatten();
        // A waiver that, while it holds, leaves a choice as written with a
        // least count (nothing else decided after it).
        let waived = c.waiver.as_ref().filter(|w| w.waived.as_written()).and_then(|w| {
            let least = def.least_count(&w.waived, w.waived.filter.as_ref())?;
            Some(Listed { def: d, sets: Listed::new_sets(&w.waived, np)?, least })
        });
        Some(Asked { def: d, sets, waived })
    }
}
