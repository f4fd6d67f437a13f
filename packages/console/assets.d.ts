/** The folder of the built console (index.html and hashed assets) that the gateway serves at /console. */
export declare const consoleDistDir: string;
