/**
 * `urldedup/presets`: the opt-in policy presets (docs/presets.md) and the policy rung that applies
 * them to a record in normal form.
 */
export { presets, isPresetName, applyPolicy, type PresetName, type Preset } from '../normalize/ladder/policy.js';
