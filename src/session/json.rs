//! The state as JSON, for scripts and tools.

use serde_json::json;

use super::Session;
use crate::engine::game::{Game, Type, Value};
use crate::position_text::{state_sites, value_name};

impl Session {
    /// The state as JSON, for scripts and tools.
    pub fn json(&mut self) -> String {
        let g = self.game.clone();
        let pos = self.engine.position().clone();
        let legal = self.legal_names();
        let outcome = self.engine.outcome().ok().flatten();
        let sites: Vec<_> = g
            .sites
            .iter()
            .enumerate()
            .map(|(i, s)| {
                let mut site = json!({
                    "name": s.name,
                    "kind": s.kind.word(),
                    "owner": s.owner.map(|o| g.players[o as usize].clone()),
                    "count": self.engine.site_count(i as u16),
                });
                if g.colours > 1 {
                    let colours: serde_json::Map<String, serde_json::Value> = (0..g.colours)
                        .map(|c| (g.players[c].clone(), json!(self.engine.colour_count(i as u16, c as u8))))
                        .collect();
                    site["colours"] = serde_json::Value::Object(colours);
                }
                site
            })
            .collect();
        let options: serde_json::Map<String, serde_json::Value> =
            g.options.iter().map(|o| (o.name.clone(), value_json(&g, o.value))).collect();
        // State variables, hidden ones left out: per-site ones as an object
        // by site name; `null` for no value.
        let state: serde_json::Map<String, serde_json::Value> = g
            .state
            .iter()
            .filter(|v| !v.hidden)
            .map(|v| {
                let value = if v.per_site {
                    // A site never set reads as false or 0 in the rules.
                    let unset = match v.ty {
                        Type::Bool => Value::Bool(false),
                        Type::Int => Value::Int(0),
                        _ => Value::None,
                    };
                    let by_site: serde_json::Map<String, serde_json::Value> = state_sites(&g, v)
                        .map(|s| {
                            let x = match pos.vars[v.offset + s] {
                                Value::None => unset,
                                x => x,
                            };
                            (g.sites[s].name.clone(), value_json(&g, x))
                        })
                        .collect();
                    serde_json::Value::Object(by_site)
                } else {
                    value_json(&g, pos.vars[v.offset])
                };
                (v.name.clone(), value)
            })
            .collect();
        let scores = self.engine.scores().unwrap_or_default();
        let v = json!({
            "game": g.name,
            "rules": self.setup.rules,
            "variants": g.variants_applied,
            "options": options,
            "players": g.players,
            "to_move": g.players[pos.turn.to_move as usize],
            "phase": g.phases.get(pos.turn.phase as usize).map(|p| p.name.clone()),
            "ply": pos.turn.ply,
            "rounds": pos.turn.round,
            "starter": g.players[pos.turn.starter as usize],
            "sites": sites,
            "state": state,
            "scores": scores,
            "legal_moves": legal,
            "over": outcome.is_some(),
            "winners": outcome.map(|o| o.winners.iter().map(|&p| g.players[p as usize].clone()).collect::<Vec<_>>()).unwrap_or_default(),
        });
        serde_json::to_string_pretty(&v).unwrap_or_default()
    }
}

/// A value as JSON: numbers and conditions as such, sites and players by
/// name, `null` for no value.
pub(super) fn value_json(g: &Game, v: Value) -> serde_json::Value {
    match v {
        Value::Int(i) => json!(i),
        Value::Bool(b) => json!(b),
        other => value_name(g, other).map_or(serde_json::Value::Null, |t| json!(t)),
    }
}
