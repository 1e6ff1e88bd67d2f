/** The line to print when this Node is too old for the package, or undefined when it is new enough. */
export function tooOldNode(): string | undefined;
