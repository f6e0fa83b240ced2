import { simulatorSeeds } from './support.js';

simulatorSeeds(151, 200);
