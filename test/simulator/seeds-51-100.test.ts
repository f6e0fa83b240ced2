import { simulatorSeeds } from './support.js';

simulatorSeeds(51, 100);
