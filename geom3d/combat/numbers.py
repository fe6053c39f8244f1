"""Rule numbers of Infinity's rolls (SPEC 12.4): the die, the Burst in ARO, the MODs the
rules fix (rule texts in the shared ``rules/`` folder, numbered 000 to 004)."""

#: Faces of the one die Infinity rolls (a d20, 002 "Rolls").
D20_FACES: int = 20

#: Dodge MOD when the affected trooper has no Line of Fire to the attacker or the weapon
#: is deployable (000: "the Dodge requires a PH -3 Roll").
DODGE_NO_LOF_MOD: int = -3

#: Burst in the Reactive Turn (002: "In ARO, the B value is always reduced to 1").
ARO_BURST: int = 1

#: The Saving Roll MOD of Partial Cover, which troopers affected by a template never get
#: (000: "do not benefit from the +3 MOD to the Saving Roll (SR) for Partial Cover").
PARTIAL_COVER_SAVE_MOD: int = 3

#: Partial Cover MOD to the attacker's roll (the +3 to the Saving Roll is
#: PARTIAL_COVER_SAVE_MOD).
PARTIAL_COVER_ROLL_MOD: int = -3

#: Every constant above is public: an upper-case name is a tolerance, a limit or a rule number.
__all__ = sorted(name for name in dict(globals()) if name.isupper() and not name.startswith("_"))
