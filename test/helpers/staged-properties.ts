/** SQL for reading staged properties from a test, whatever way they are stored (see src/staging/property-blocks.ts). */
import { propertiesSql, propertiesTextSql } from '../../src/staging/property-blocks.js';

/** The `properties` column as the JSON text staged. */
export const STAGED_PROPERTIES_TEXT = propertiesTextSql('properties');
/** The `properties` column as a value SQLite's JSON functions read. */
export const STAGED_PROPERTIES = propertiesSql('properties');
