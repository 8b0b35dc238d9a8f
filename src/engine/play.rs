//! Making a move, and what is looked at after it: whose turn is next, phase
//! changes, `end`s. Scores and the outcome.

use super::game::StuckAction;
use super::program::{MoveProg, Program, index_in, run};
use super::vm::{Fault, Frame, NONE, PhaseLead, Res, Vm, trial_work};
use super::{AFTER_DRAWS, Move, Outcome, SCORE_DRAWS, SETTLE_DRAWS, Verdict, movegen};

/// Binds the first `upto` choices of a move to the values it chose.
#[inline(always)]
pub(crate) fn bind_choices(def: &MoveProg, upto: usize, mv: &Move, vm: &mut Vm) {
    for (j, c) in def.choices[..upto].iter().enumerate() {
        vm.locals[c.slot] = if c.is_order() { NONE } else { mv.args[j] as i64 };
    }
}

/// Makes a move (its frame is left in `vm.f`); on an error the position is
/// left as it was. A move just tried while drawing it is not made again:
/// what its statements made is taken from the trial (see
/// [`crate::engine::vm::Tried`]).
pub(crate) fn apply_frame(p: &Program, vm: &mut Vm, mv: Move) -> Res<()> {
    let mover = vm.pos.turn.to_move;
    let r = if vm.take_tried(mv) {
        // Kept whole (see `vm::Tried`): nothing is left to make.
        match vm.replay_tried() {
            true => Ok(()),
            false => after_statements(p, vm, mover),
        }
    } else {
        vm.push_undo();
        apply_inner(p, vm, mv).and_then(|()| after_statements(p, vm, mover))
    };
    if r.is_err() {
        vm.undo();
    }
    r
}

/// Finishes a move whose statements a draw's trial left made
/// (`movegen::draw_move`): what follows them, as [`apply_frame`] finishes a
/// move it takes from its trial. On an error the position is left as it
/// was before the move.
pub(crate) fn finish_made(p: &Program, vm: &mut Vm) -> Res<()> {
    let mover = vm.pos.turn.to_move;
    let r = after_statements(p, vm, mover);
    if r.is_err() {
        vm.undo();
    }
    r
}

/// A move's statements, its rules' included.
fn apply_inner(p: &Program, vm: &mut Vm, mv: Move) -> Res<()> {
    let mover = vm.pos.turn.to_move;
    vm.f = Frame::new(mover);
    vm.f.order = mv.order;
    vm.f.moving = true;
    vm.draws = 0;
    if !mv.is_pass() {
        let def =
            p.moves.get(mv.def as usize).ok_or_else(|| Fault::error(format!("no move declaration {}", mv.def)))?;
        bind_choices(def, def.choices.len(), &mv, vm);
        run(&def.body, p, vm)?;
    }
    Ok(())
}

/// The first of the phase's changes whose condition holds, taken. Out of
/// line: most games have no phases, and each condition read in place
/// here grew the code every move runs through. When none holds, what it
/// found of an `end`'s first term (see `program/leads.rs`) is left in
/// `vm.phase_lead` for [`check_led_ends`], which the `end`s are asked by
/// next.
#[inline(never)]
fn change_phase(p: &Program, vm: &mut Vm) -> Res<()> {
    vm.phase_lead = None;
    let ph = vm.pos.turn.phase as usize;
    let Some(changes) = p.phases.get(ph) else { return Ok(()) };
    let mut found = None;
    for (k, change) in changes.iter().enumerate() {
        let fuel = vm.fuel;
        // An error is shown at the condition that met it.
        if change.cond.get(p, vm).map_err(|e| e.within(p.game.phases[ph].transitions[k].2))? != 0 {
            vm.pos.turn.phase = change.to;
            return Ok(());
        }
        if let Some(end) = change.lead_of {
            found = Some(PhaseLead { end, work: fuel - vm.fuel });
        }
    }
    vm.phase_lead = found;
    Ok(())
}

/// What follows a move's statements: the ply counted, whose turn is next,
/// phase changes, `end`s and rounds. Inlined where moves are made: a call
/// here was two percent of a short game's ply.
#[inline(always)]
fn after_statements(p: &Program, vm: &mut Vm, mover: u8) -> Res<()> {
    let np = p.players;
    vm.pos.turn.ply += 1;
    // What follows is looked at from the next ply: its draws must not
    // repeat those of the move to be made at that ply.
    vm.draws = AFTER_DRAWS;
    // The seat after the mover's (no division: this runs at every move).
    vm.f.next = match vm.f.again {
        true => mover,
        false if mover + 1 >= np => 0,
        false => mover + 1,
    };
    // The position after the move, whose turn and phase included, is what
    // `end` conditions look at (`repetitions` compares all of it).
    vm.pos.turn.to_move = vm.f.next;
    if let Some(ph) = vm.f.enter {
        vm.pos.turn.phase = ph;
        // Nothing found by the changes of this position.
        vm.phase_lead = None;
    } else if p.phase_changes {
        change_phase(p, vm)?;
    }
    if vm.f.end {
        vm.pos.turn.ended = true;
    } else {
        check_ends(p, vm)?;
    }
    if !vm.pos.turn.ended && !p.rounds.is_empty() {
        // A game's one round whose condition an `end` found false after
        // this move is passed over here: the call to find that out was
        // some 40 instructions a ply (2% of Congkak's and Jongkak's).
        let lead_false = vm.lead_false.take();
        if p.round_lead.is_none() || p.round_lead != lead_false {
            check_rounds(p, vm, lead_false)?;
        }
    }
    Ok(())
}

/// Ends the round if a `round`'s condition holds: its statements set up the
/// next, which the player they `start` begins (else the player to move).
/// `lead_false`: the `end` that found its first term false after this move.
fn check_rounds(p: &Program, vm: &mut Vm, lead_false: Option<u16>) -> Res<()> {
    for r in &p.rounds {
        // Its condition is an `end`'s first term, found false after this move.
        if r.lead_of.is_some() && r.lead_of == lead_false {
            continue;
        }
        if r.cond.get(p, vm).map_err(|e| end_error(p, false, r, e))? != 0 {
            vm.f.start = None;
            run(&r.body, p, vm)?;
            let t = &mut vm.pos.turn;
            t.round = t.round.saturating_add(1);
            t.to_move = vm.f.start.unwrap_or(t.to_move);
            t.starter = t.to_move;
            vm.f.next = t.to_move;
            break;
        }
    }
    Ok(())
}

/// Runs a move's statements, its rules included, to see whether it is
/// legal: what follows a move (phase changes, `end`s, being stuck) decides
/// nothing about it, so a trial stops there, and an `end` that asks who can
/// move never finds itself asked again. On success the caller undoes it.
/// The position it saves and gives back costs work too ([`trial_work`]).
pub(crate) fn try_statements(p: &Program, vm: &mut Vm, mv: Move) -> Res<()> {
    vm.spend(trial_work(vm.pos.counts.len()))?;
    vm.push_undo();
    vm.f = Frame::new(vm.pos.turn.to_move);
    vm.f.order = mv.order;
    vm.f.moving = true;
    vm.draws = 0;
    let r = match p.moves.get(mv.def as usize) {
        Some(def) => {
            bind_choices(def, def.choices.len(), &mv, vm);
            run(&def.body, p, vm)
        }
        None => Err(Fault::error(format!("no move declaration {}", mv.def))),
    };
    if r.is_err() {
        vm.undo();
    }
    r
}

/// Runs the first `end` whose condition holds, and ends the game; else,
/// with `when stuck: end { ... }`, ends it if the player to move is stuck.
/// The conditions are asked in place at every move; what follows one that
/// holds is out of line.
#[inline(always)]
fn check_ends(p: &Program, vm: &mut Vm) -> Res<()> {
    if p.led_ends {
        return check_led_ends(p, vm);
    }
    for end in &p.ends {
        if end.cond.get(p, vm).map_err(|e| end_error(p, true, end, e))? != 0 {
            return end_by(p, vm, end);
        }
    }
    if !p.stuck_body.is_empty() {
        return end_if_stuck(p, vm);
    }
    Ok(())
}

/// [`check_ends`] in a game some of whose `end`s ask a round's or a phase
/// change's condition first: an `end` that finds it false says so, for
/// the rounds; one the phase's changes found false of this position
/// (`vm.phase_lead`, taken) is not asked again, but spends the work it
/// took. Out of line: inlined, it cost the games without such `end`s 3 to
/// 6 instructions a ply, and saved these 16 more.
#[inline(never)]
fn check_led_ends(p: &Program, vm: &mut Vm) -> Res<()> {
    let found = vm.phase_lead.take();
    // The one thing to ask, false: the `end` it leads not taken, nor the
    // round it is the condition of.
    if let Some(t) = &p.lead_test
        && t.holds(p, vm) == Some(false)
    {
        vm.lead_false = Some(t.end);
        return Ok(());
    }
    vm.lead_false = None;
    for (k, end) in p.ends.iter().enumerate() {
        // With a `rest`, `cond` is a round's or a phase change's
        // condition, asked first (see `program/leads.rs`).
        let first = match found {
            Some(f) if f.end as usize == k => vm.spend(f.work).map(|()| 0),
            _ => end.cond.get(p, vm),
        };
        let holds = match (first, &end.rest) {
            (Ok(0), Some(_)) => {
                vm.lead_false = Some(k as u16);
                Ok(0)
            }
            (Ok(_), Some(rest)) => rest.get(p, vm),
            (first, _) => first,
        };
        if holds.map_err(|e| end_error(p, true, end, e))? != 0 {
            return end_by(p, vm, end);
        }
    }
    if !p.stuck_body.is_empty() {
        return end_if_stuck(p, vm);
    }
    Ok(())
}

/// Ends the game by `end`, whose condition holds: its verdict, its statements.
#[inline(never)]
fn end_by(p: &Program, vm: &mut Vm, end: &super::program::EndProg) -> Res<()> {
    let verdict = match &end.verdict {
        Some((winner, who)) => {
            let who = who.player(p, vm).map_err(|e| {
                let k = index_in(&p.ends, end);
                e.within(p.game.ends[k].verdict_span)
            })?;
            if *winner { Verdict::Wins(who) } else { Verdict::Loses(who) }
        }
        None => Verdict::Score,
    };
    run(&end.body, p, vm)?;
    vm.pos.turn.ended = true;
    vm.pos.turn.verdict = verdict;
    Ok(())
}

/// With `when stuck: end { ... }`: ends the game if the player to move is stuck.
#[inline(never)]
fn end_if_stuck(p: &Program, vm: &mut Vm) -> Res<()> {
    if !movegen::can_move(p, vm, vm.pos.turn.to_move)? {
        let stuck = vm.pos.turn.to_move;
        run(&p.stuck_body, p, vm)?;
        vm.pos.turn.ended = true;
        if p.game.stuck == StuckAction::Lose {
            vm.pos.turn.verdict = Verdict::Loses(stuck);
        }
    }
    Ok(())
}

/// After a position is set from text: if an `end` condition holds, its
/// statements run and the game is over, as they would after a move.
pub(crate) fn settle(p: &Program, vm: &mut Vm) -> Res<()> {
    // An `end`'s statements change the position in place, not as a move.
    vm.changed_in_place();
    vm.draws = SETTLE_DRAWS;
    vm.f = Frame::new(vm.pos.turn.to_move);
    // Nothing found by a phase's changes: the position is a new one.
    vm.phase_lead = None;
    check_ends(p, vm)
}

/// The outcome, once the game is over (no legal moves).
pub(crate) fn outcome(p: &Program, vm: &mut Vm) -> Res<Option<Outcome>> {
    if movegen::count_moves(p, vm)? > 0 {
        return Ok(None);
    }
    let scores = scores(p, vm)?;
    let turn = vm.pos.turn;
    // A player stuck without an `end` having run: with `when stuck: lose`, they lose.
    let verdict = match turn.verdict {
        Verdict::Score if !turn.ended && p.game.stuck == StuckAction::Lose => Verdict::Loses(turn.to_move),
        v => v,
    };
    let side = |q: u8| p.game.partners.iter().find(|g| g.contains(&q)).map_or(q, |g| g[0]);
    let players = 0..scores.len() as u8;
    let winners = match verdict {
        Verdict::Score => {
            let best = scores.iter().copied().max().unwrap_or(0);
            players.filter(|&i| scores[i as usize] == best).collect()
        }
        Verdict::Wins(w) => players.filter(|&i| side(i) == side(w)).collect(),
        Verdict::Loses(l) => players.filter(|&i| side(i) != side(l)).collect(),
    };
    Ok(Some(Outcome { scores, winners }))
}

/// Each player's score in the current position.
pub(crate) fn scores(p: &Program, vm: &mut Vm) -> Res<Vec<i64>> {
    // Scoring may draw random numbers (dice): one sequence for all
    // players, apart from the last move's (which drew at the same ply).
    vm.draws = SCORE_DRAWS;
    let players = p.game.players.len();
    let mut out = Vec::with_capacity(players);
    for pl in 0..players as u8 {
        // Partners share one score: the first partner's, worked out once.
        match p.game.partners.iter().find(|gr| gr.contains(&pl)).map(|gr| gr[0]).filter(|&f| f != pl) {
            Some(first) => out.push(out[first as usize]),
            None => out.push(score_inner(p, vm, pl)?),
        }
    }
    Ok(out)
}

/// One player's score now (partners share the first partner's).
pub(crate) fn score_of(p: &Program, vm: &mut Vm, pl: u8) -> Res<i64> {
    vm.draws = SCORE_DRAWS;
    score_inner(p, vm, pl)
}

fn score_inner(p: &Program, vm: &mut Vm, pl: u8) -> Res<i64> {
    let pl = p.game.partners.iter().find(|gr| gr.contains(&pl)).map_or(pl, |gr| gr[0]);
    vm.f = Frame::new(vm.pos.turn.to_move);
    vm.locals[p.score_slot] = pl as i64;
    // The score may read banks: it is not part of the play.
    let watched = vm.bank_read;
    let r = p.score.get(p, vm);
    vm.bank_read = watched;
    r.map_err(|e| match p.game.score_span {
        Some(span) => e.within(span),
        None => e,
    })
}

/// An error met by the condition of `r`, an `end` (else a `round`), given
/// the condition's place.
#[cold]
fn end_error(p: &Program, is_end: bool, r: &super::program::EndProg, e: Fault) -> Fault {
    let span = match is_end {
        true => p.game.ends[index_in(&p.ends, r)].cond_span,
        false => p.game.rounds[index_in(&p.rounds, r)].cond_span,
    };
    e.within(span)
}
