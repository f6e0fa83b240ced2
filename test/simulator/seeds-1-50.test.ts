import { simulatorSeeds } from './support.js';

simulatorSeeds(1, 50);
