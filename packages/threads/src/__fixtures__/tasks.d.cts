// Types of tasks.cjs, for the tests.
export declare function cjsCount(): number;
export declare function cjsBasename(p: string): string;
export declare function cjsWhere(): string;
