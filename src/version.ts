/** The version of this package, as published (a unit test keeps it equal to package.json's). */
export const VERSION = '0.4.0';
