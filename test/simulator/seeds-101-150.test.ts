import { simulatorSeeds } from './support.js';

simulatorSeeds(101, 150);
