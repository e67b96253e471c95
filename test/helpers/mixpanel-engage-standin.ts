/** Mixpanel's Engage API for the Mixpanel stand-in: written once, in scripts/ (npm run demo serves it too). */
export { engageStandin, type EngageOptions, type EngageStandin, type MixpanelProfile } from '../../scripts/mixpanel-engage-standin.mjs';
