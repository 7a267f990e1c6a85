import { tierUpSooner } from './tier-up-budget.js';

// Imported first by main.ts, so the budget holds from the first call of the server's functions.
tierUpSooner();
