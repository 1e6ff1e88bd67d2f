// createNodeMiddleware in real NestJS apps (platform-express), both ways: @Req()/@Res() in a
// controller with Nest's body parser on, and consumer.apply().forRoutes().
// Decorators are applied as functions, so no decorator transform is needed in the test runner;
// the README's decorator-syntax version is compiled by the README check.
import 'reflect-metadata';
import type { AddressInfo } from 'node:net';
import { Controller, type MiddlewareConsumer, Module, Post, Req, Res } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import type { NestExpressApplication } from '@nestjs/platform-express';
import {
  createNodeMiddleware,
  type NodeRequestLike,
  type NodeResponseLike,
} from '../../src/webhooks/adapters/node.js';
import type { WebhookHandler } from '../../src/webhooks/receive/handler.js';
import { deliveryCases, type Receiver } from './cases.js';

/** The first way: a controller route that hands Nest's request and response to the middleware. */
function controllerModule(hooks: WebhookHandler) {
  const webhooks = createNodeMiddleware(hooks);
  class HooksController {
    receive(req: NodeRequestLike, res: NodeResponseLike) {
      return webhooks(req, res);
    }
  }
  const receive = Object.getOwnPropertyDescriptor(HooksController.prototype, 'receive');
  Req()(HooksController.prototype, 'receive', 0);
  Res()(HooksController.prototype, 'receive', 1);
  Post('hooks')(HooksController.prototype, 'receive', receive as PropertyDescriptor);
  Controller()(HooksController);
  class AppModule {}
  Module({ controllers: [HooksController] })(AppModule);
  return AppModule;
}

/** The second way: a module that applies the middleware to the route. */
function middlewareModule(hooks: WebhookHandler) {
  class AppModule {
    configure(consumer: MiddlewareConsumer) {
      consumer.apply(createNodeMiddleware(hooks)).forRoutes('hooks');
    }
  }
  Module({})(AppModule);
  return AppModule;
}

function start(
  module: (hooks: WebhookHandler) => new () => unknown,
  options: { bodyParser?: boolean; rawBody?: boolean },
) {
  return async (hooks: WebhookHandler): Promise<Receiver> => {
    const app = await NestFactory.create<NestExpressApplication>(module(hooks), {
      logger: false,
      ...options,
    });
    await app.listen(0, '127.0.0.1');
    const { port } = app.getHttpServer().address() as AddressInfo;
    return { url: `http://127.0.0.1:${port}`, close: () => app.close() };
  };
}

// With Nest's body parser on (the default), malformed JSON is refused by the parser (400) before
// any route or middleware: out of the SDK's reach.
deliveryCases(
  'NestJS, @Req()/@Res() controller, body parser on, rawBody: true',
  start(controllerModule, { rawBody: true }),
  {
    malformedAnsweredBy: 400,
  },
);
deliveryCases('NestJS, @Req()/@Res() controller, body parser on', start(controllerModule, {}), {
  malformedAnsweredBy: 400,
});
deliveryCases(
  'NestJS, @Req()/@Res() controller, bodyParser: false',
  start(controllerModule, { bodyParser: false }),
  {
    ownsBody: true,
  },
);
deliveryCases(
  'NestJS, consumer.apply().forRoutes(), bodyParser: false',
  start(middlewareModule, { bodyParser: false }),
  {
    ownsBody: true,
  },
);
deliveryCases('NestJS, consumer.apply().forRoutes(), body parser on', start(middlewareModule, {}), {
  malformedAnsweredBy: 400,
});
